export {
  DocumentValidator,
  type DocumentResult,
  type Finding,
  type Position,
  type ValidateDocumentsOptions,
} from './validate-documents.js';
export { type Summary, jsonReport, junitReport, summarize, textReport } from './report.js';
