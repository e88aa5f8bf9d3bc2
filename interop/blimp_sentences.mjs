// Prints every sentence_good and sentence_bad of a BLiMP directory's *.jsonl files, in file order.
import { readdirSync, readFileSync } from "node:fs";

const dir = process.argv[2];
const out = [];
for (const f of readdirSync(dir).filter((f) => f.endsWith(".jsonl")).sort())
  for (const line of readFileSync(`${dir}/${f}`, "utf8").split("\n")) {
    if (!line.trim()) continue;
    const j = JSON.parse(line);
    out.push(j.sentence_good, j.sentence_bad);
  }
process.stdout.write(out.join("\n") + "\n");
