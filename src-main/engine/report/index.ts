export { renderReport, type ReportFormatName } from './render-report';
export { escapeHtml, escapeMarkdown, showInvisible } from './escape-text';
