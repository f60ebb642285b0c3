// ids.mjs: the reference token ids of a corpus, from @lenml/tokenizers (a
// tokenizers-only fork of transformers.js) with each model's real tokenizer.json.
//
//   node ids.mjs CORPUS.jsonl OUT.json      ids of every line, for every tokenizer
//   node ids.mjs --speed TEXTFILE           encode throughput (MB/s, one core) per tokenizer
//   node ids.mjs --list                     one "name<TAB>directory" line per tokenizer
//
// Ids are without special tokens added (no BOS), as frontier's Encode gives them.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { TokenizerLoader } from "@lenml/tokenizers";

const here = dirname(fileURLToPath(import.meta.url));
export const kTokenizers = ["llama2", "llama3_1", "deepseek_v3", "gptoss", "qwen3"];

function modelsDir(name) {
  return join(here, "node_modules", "@lenml", `tokenizer-${name}`, "models");
}
function load(name) {
  const dir = modelsDir(name);
  return TokenizerLoader.fromPreTrained({
    tokenizerJSON: JSON.parse(readFileSync(join(dir, "tokenizer.json"), "utf8")),
    tokenizerConfig: JSON.parse(readFileSync(join(dir, "tokenizer_config.json"), "utf8")),
  });
}

const args = process.argv.slice(2);
if (args[0] === "--list") {
  for (const n of kTokenizers) console.log(`${n}\t${modelsDir(n)}`);
} else if (args[0] === "--speed") {
  const text = readFileSync(args[1], "utf8");
  const mb = Buffer.byteLength(text, "utf8") / 1e6;
  for (const n of kTokenizers) {
    const tok = load(n);
    tok.encode(text.slice(0, 10000), { add_special_tokens: false });  // warm the JIT
    const t0 = process.hrtime.bigint();
    const ids = tok.encode(text, { add_special_tokens: false });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`${n}\t${(mb / s).toFixed(3)}\t${ids.length}`);
  }
} else if (args.length === 2) {
  const lines = readFileSync(args[0], "utf8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
  const out = {};
  for (const n of kTokenizers) {
    const tok = load(n);
    out[n] = lines.map((s) => tok.encode(s, { add_special_tokens: false }));
  }
  writeFileSync(args[1], JSON.stringify(out));
} else {
  console.error("usage: node ids.mjs CORPUS.jsonl OUT.json | --speed TEXTFILE | --list");
  process.exit(2);
}
