export { type Regex, RegexSyntaxError, compileRegex, regexError } from './regex.js';
