// Files the commands write (--report, --patch) and read: checked before anything runs, and
// every failure an error naming the flag and the file, not a stack trace.
import { accessSync, constants, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** A file system error in words (the errno code's meaning, else the message). */
export function ioErrorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EISDIR") return "is a directory";
  if (code === "ENOTDIR") return "a part of the path is not a directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "EROFS") return "read-only file system";
  return (error as Error).message;
}

/**
 * Whether `file` can be written, checked before a run so a long run does not end in a failed
 * write: its directory exists and is writable, and it is not itself a directory. Returns the
 * problem (naming the flag), or null.
 */
export function outputFileProblem(flag: string, file: string): string | null {
  const directory = dirname(resolve(file));
  const problem = (why: string) => `${flag}: cannot write ${file}: ${why}`;
  try {
    if (!statSync(directory).isDirectory()) return problem(`${directory} is not a directory`);
    accessSync(directory, constants.W_OK);
  } catch (error) {
    return problem(`${directory}: ${ioErrorText(error)}`);
  }
  try {
    if (statSync(file).isDirectory()) return problem("is a directory");
    accessSync(file, constants.W_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return problem(ioErrorText(error));
  }
  return null;
}

/** Writes `file`; returns the error naming the flag (a disk that filled since the check), or null. */
export function writeOutputFile(flag: string, file: string, text: string): string | null {
  try {
    writeFileSync(file, text);
    return null;
  } catch (error) {
    return `${flag}: cannot write ${file}: ${ioErrorText(error)}`;
  }
}
