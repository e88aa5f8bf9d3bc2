// Loads an exported HF folder's tokenizer with transformers.js (HF's JavaScript implementation of
// tokenizer.json), offline, and compares its ids with `babyberta encode`'s, line by line.
// Usage: node check_tokenizer.mjs HF_DIR SENTENCES IDS  (IDS: one line of space-separated ids per
// sentence, as `babyberta encode` prints). Prints the mismatch count (and the first 10); exits 1
// on any mismatch.
import { readFileSync } from "node:fs";
import path from "node:path";
import { AutoTokenizer, env } from "@huggingface/transformers";

const [dir, sentencesFile, idsFile] = process.argv.slice(2);
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = path.dirname(path.resolve(dir)) + "/";
const tokenizer = await AutoTokenizer.from_pretrained(path.basename(path.resolve(dir)));
const sentences = readFileSync(sentencesFile, "utf8").split("\n");
const expected = readFileSync(idsFile, "utf8").split("\n");
if (sentences[sentences.length - 1] === "") sentences.pop();
let mismatches = 0;
for (let i = 0; i < sentences.length; ++i) {
  const ids = tokenizer.encode(sentences[i]).join(" ");
  const want = i < expected.length ? expected[i].trim() : "(missing line)";
  if (ids !== want) {
    if (++mismatches <= 10)
      console.log(`mismatch at line ${i + 1}: ${JSON.stringify(sentences[i])}\n  ours: ${want}\n  js:   ${ids}`);
  }
}
console.log(`${sentences.length} sentences, ${mismatches} mismatches (${sentencesFile})`);
process.exit(mismatches === 0 ? 0 : 1);
