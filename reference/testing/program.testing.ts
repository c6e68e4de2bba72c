/** Test support: a program run as a process, its exit code and output kept whatever the code. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface ProgramResult {
  /** The exit code; -1 when the program was killed (its timeout) or did not start. */
  code: number;
  stdout: string;
  stderr: string;
}

export interface ProgramOptions {
  cwd?: string;
  /** Added to this process's environment. */
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/**
 * Runs `command` with `args`; never throws on a non-zero exit (the caller reads `code`), only
 * when the program is not installed (ENOENT), naming it.
 */
export async function runProgram(command: string, args: readonly string[], options: ProgramOptions = {}): Promise<ProgramResult> {
  try {
    const { stdout, stderr } = await run(command, [...args], {
      cwd: options.cwd,
      timeout: options.timeoutMs ?? 30_000,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, ...options.env },
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number | string; stdout?: string; stderr?: string };
    if (err.code === 'ENOENT') throw new Error(`${command} is not installed (not found on PATH)`);
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}
