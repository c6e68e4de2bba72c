import { type ParseArgsConfig, parseArgs } from 'node:util';
import { closestName, UnknownOptionError } from './usage-error.js';

/**
 * node:util's parseArgs for a command's flags; an unknown option is an UnknownOptionError naming
 * the command's option it likely meant, in place of parseArgs's paragraph about positionals.
 */
export function parseCommandLine<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (e) {
    const option =
      e instanceof TypeError && 'code' in e && e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec(e.message)?.[1] : undefined;
    if (option === undefined) throw e;
    // Compared without dashes, so that -x is not "one edit from -h".
    const names = Object.entries(config.options ?? {}).flatMap(([long, o]) => [long, ...(o.short ? [o.short] : [])]);
    const meant = closestName(option.replace(/^-+/, ''), names);
    throw new UnknownOptionError(option, meant === undefined ? undefined : `${meant.length === 1 ? '-' : '--'}${meant}`);
  }
}
