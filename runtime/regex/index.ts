export { type Regex, RegexSyntaxError, compileRegex, lazyRegex, regexError } from './regex.js';
