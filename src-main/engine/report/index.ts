export { renderReport } from './render-report';
