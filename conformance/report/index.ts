export { formatJsonReport, REPORT_TRACES, type ReportTraces } from './json.js';
export { escapeXml, formatJunitReport } from './junit.js';
export { ProgressBar } from './progress.js';
export { closingLine } from './summary-line.js';
export { areaCounts, formatFailure, formatTerminalReport, formatTrace, type TerminalOptions } from './terminal.js';
