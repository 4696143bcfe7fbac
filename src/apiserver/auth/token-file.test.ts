import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { csvRecords, parseTokenFile, readTokenFile, TokenFileError } from "./token-file.ts";

const parse = (text: string) => parseTokenFile(Buffer.from(text), "tokens.csv");
const refusal = (text: string) => {
  try {
    parse(text);
  } catch (err) {
    assert.ok(err instanceof TokenFileError);
    return err.message;
  }
  return assert.fail("the token file was accepted");
};

describe("static token file", () => {
  it("reads kube's records: token, user, uid and groups, a group list in quotes", () => {
    const { users, warnings } = parse(
      'admintoken,admin,admin-uid,system:masters\nalicetoken,alice,alice-uid\nimptoken,imp,imp-uid,"g1,g2"\n',
    );
    assert.deepEqual(Object.fromEntries(users), {
      admintoken: { username: "admin", uid: "admin-uid", groups: ["system:masters"] },
      alicetoken: { username: "alice", uid: "alice-uid", groups: [] },
      imptoken: { username: "imp", uid: "imp-uid", groups: ["g1", "g2"] },
    });
    assert.deepEqual(warnings, []);
  });

  it("makes an empty fourth column one empty group and an empty uid none, as kube does", () => {
    assert.deepEqual(parse("t,eg,,\n").users.get("t"), { username: "eg", groups: [""] });
  });

  it("skips empty lines and empty tokens, keeps a repeated token's last record, and says so", () => {
    const { users, warnings } = parse("\n\n,nobody,0\nt,first,1\r\nt,second,2");
    assert.equal(users.get("t")?.username, "second");
    assert.equal(users.size, 1);
    assert.deepEqual(warnings, [
      "empty token has been found in token file 'tokens.csv', record number '1'",
      "duplicate token has been found in token file 'tokens.csv', record number '3'",
    ]);
  });

  it("reads names and groups as UTF-8 and keeps the token's bytes, as headers arrive", () => {
    const { users } = parse("tök,jürgen,1,grüppe\n");
    const header = Buffer.from("tök").toString("latin1");
    assert.deepEqual(users.get(header), { username: "jürgen", uid: "1", groups: ["grüppe"] });
  });

  it("refuses what kube-apiserver refuses to start with, in its words", () => {
    assert.equal(
      refusal("a,b\n"),
      "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    );
    assert.equal(
      refusal("\n\nt,u,i\nx,y\n"),
      "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    );
    assert.equal(
      refusal('a,b,"c\n'),
      'parse error on line 1, column 8: extraneous or missing " in quoted-field',
    );
    assert.equal(
      refusal('a,b"x,c\n'),
      'parse error on line 1, column 4: bare " in non-quoted-field',
    );
    assert.equal(
      refusal('t,u,"i\nj" x\n'),
      'record on line 1; parse error on line 2, column 2: extraneous or missing " in quoted-field',
    );
    assert.deepEqual(parse("").users.size, 0);
  });

  it("reads a file, and says as kube does when there is none", async () => {
    const dir = await mkdtemp(join(tmpdir(), "kontroller-token-file-"));
    try {
      const path = join(dir, "tokens.csv");
      await writeFile(path, "t,u,1\n");
      assert.equal((await readTokenFile(path)).users.get("t")?.username, "u");
      await assert.rejects(readTokenFile(join(dir, "none.csv")), {
        name: "TokenFileError",
        message: `open ${join(dir, "none.csv")}: no such file or directory`,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads back any records written as Go's csv writer quotes them", () => {
    const field = fc.string({ unit: fc.constantFrom("a", "b", ",", '"', "\n", " ", "é") });
    fc.assert(
      fc.property(
        fc.array(fc.array(field, { minLength: 2, maxLength: 4 }), { maxLength: 5 }),
        (records) => {
          const quote = (f: string) =>
            /[",\n\r ]/.test(f) || f === "" ? `"${f.replaceAll('"', '""')}"` : f;
          const text = records.map((r) => `${r.map(quote).join(",")}\n`).join("");
          assert.deepEqual([...csvRecords(text)], records);
        },
      ),
    );
  });
});
