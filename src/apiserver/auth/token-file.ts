import { readFile } from "node:fs/promises";
import { errnoCode, errorMessage } from "../../core/index.ts";
import type { UserInfo } from "./user.ts";

/*
 * kube-apiserver's static token file (`--token-auth-file`): a CSV file of
 * `token,user,uid[,"group1,group2"]` records, read as kube reads it — with Go's encoding/csv
 * (quoted fields, `""` for a quote, fields across lines in quotes, empty lines skipped, `\r\n`
 * as `\n`, no comments, no trimming), a record of fewer than three columns refused, a record
 * with an empty token skipped and a repeated token's last record kept (both with a warning),
 * the fourth column split on "," into groups (an empty fourth column is one group "", as kube
 * makes it). The errors are worded as kube-apiserver words them at start.
 *
 * The file is read as bytes (latin1), so that a token is compared byte for byte with the
 * `Authorization` header, which Node also reads as latin1; names, uids and groups are UTF-8.
 */

/** A token file that kube-apiserver would refuse to start with; the message is kube's. */
export class TokenFileError extends Error {
  override readonly name = "TokenFileError";
}

/** What a token file holds. */
export interface StaticTokens {
  /** Each token (as latin1, the way Node reads headers) and its user. */
  readonly users: ReadonlyMap<string, UserInfo>;
  /** What kube-apiserver warns of in its log: empty and repeated tokens. */
  readonly warnings: readonly string[];
}

/** Reads the token file at `path`; rejects with a {@link TokenFileError} as kube words it. */
export async function readTokenFile(path: string): Promise<StaticTokens> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT") throw new TokenFileError(`open ${path}: no such file or directory`);
    if (code === "EACCES") throw new TokenFileError(`open ${path}: permission denied`);
    throw new TokenFileError(`open ${path}: ${errorMessage(err)}`);
  }
  return parseTokenFile(bytes, path);
}

/** Parses a token file's bytes; `path` is only for the messages. */
export function parseTokenFile(bytes: Uint8Array, path: string): StaticTokens {
  const users = new Map<string, UserInfo>();
  const warnings: string[] = [];
  let recordNum = 0;
  for (const record of csvRecords(Buffer.from(bytes).toString("latin1"))) {
    if (record.length < 3) {
      throw new TokenFileError(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`,
      );
    }
    recordNum++;
    const [token, name, uid, groups] = record as [string, string, string, string | undefined];
    if (token === "") {
      warnings.push(
        `empty token has been found in token file '${path}', record number '${recordNum}'`,
      );
      continue;
    }
    if (users.has(token)) {
      warnings.push(
        `duplicate token has been found in token file '${path}', record number '${recordNum}'`,
      );
    }
    users.set(token, {
      username: utf8(name),
      ...(uid === "" ? {} : { uid: utf8(uid) }),
      groups: groups === undefined ? [] : utf8(groups).split(","),
    });
  }
  return { users, warnings };
}

function utf8(latin1: string): string {
  return Buffer.from(latin1, "latin1").toString("utf8");
}

const QUOTE_ERROR = 'extraneous or missing " in quoted-field';
const BARE_QUOTE_ERROR = 'bare " in non-quoted-field';

/** Go's `csv.ParseError` message. */
function parseError(startLine: number, line: number, column: number, what: string): TokenFileError {
  const at = `parse error on line ${line}, column ${column}: ${what}`;
  return new TokenFileError(startLine === line ? at : `record on line ${startLine}; ${at}`);
}

/**
 * The records of a CSV text (one character per byte), as Go's `csv.Reader` with its defaults
 * and any number of fields per record reads them; throws its first parse error. Columns count
 * bytes from 1, lines from 1, as Go's do.
 */
export function* csvRecords(text: string): Generator<string[]> {
  let offset = 0;
  let numLine = 0;
  /** Go's `readLine`: the next line with its "\n" ("\r\n" made "\n"), or undefined at the end. */
  const readLine = (): string | undefined => {
    numLine++;
    if (offset >= text.length) return undefined;
    const nl = text.indexOf("\n", offset);
    let line = nl < 0 ? text.slice(offset) : text.slice(offset, nl + 1);
    offset += line.length;
    if (nl < 0 && line.endsWith("\r")) line = line.slice(0, -1);
    if (line.endsWith("\r\n")) line = `${line.slice(0, -2)}\n`;
    return line;
  };
  const lengthNL = (s: string) => (s.endsWith("\n") ? 1 : 0);
  for (;;) {
    let line = readLine();
    while (line !== undefined && line.length === lengthNL(line)) line = readLine();
    if (line === undefined) return;
    const recLine = numLine;
    const fields: string[] = [];
    let posLine = numLine;
    let col = 1;
    record: for (;;) {
      if (line.length === 0 || line[0] !== '"') {
        const comma = line.indexOf(",");
        const field =
          comma >= 0 ? line.slice(0, comma) : line.slice(0, line.length - lengthNL(line));
        const quote = field.indexOf('"');
        if (quote >= 0) throw parseError(recLine, numLine, col + quote, BARE_QUOTE_ERROR);
        fields.push(field);
        if (comma < 0) break;
        line = line.slice(comma + 1);
        col += comma + 1;
        continue;
      }
      line = line.slice(1);
      col += 1;
      let field = "";
      for (;;) {
        const quote = line.indexOf('"');
        if (quote >= 0) {
          field += line.slice(0, quote);
          line = line.slice(quote + 1);
          col += quote + 1;
          const next = line[0];
          if (next === '"') {
            field += '"';
            line = line.slice(1);
            col += 1;
          } else if (next === ",") {
            line = line.slice(1);
            col += 1;
            fields.push(field);
            continue record;
          } else if (lengthNL(line) === line.length) {
            fields.push(field);
            break record;
          } else {
            throw parseError(recLine, numLine, col - 1, QUOTE_ERROR);
          }
        } else if (line.length > 0) {
          field += line;
          col += line.length;
          line = readLine() ?? "";
          if (line.length > 0) {
            posLine++;
            col = 1;
          }
        } else {
          // The file ended inside quotes.
          throw parseError(recLine, posLine, col, QUOTE_ERROR);
        }
      }
    }
    yield fields;
  }
}
