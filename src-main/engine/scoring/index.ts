export { loadSettings, settingsHash, type Settings } from './settings';
