// tokenizer_fixture.js: writes tests/tokenizer/fixture.json, GPT-2 token ids for a varied
// set of strings, produced by GPT-2 tokenizers that share no code with ttrace.
//
//   mkdir -p /tmp/npmw && cd /tmp/npmw && npm install gpt-3-encoder gpt-tokenizer js-tiktoken
//   apt-get install python3-regex        # the regex module OpenAI's encoder.py imports
//   NODE_PATH=/tmp/npmw/node_modules node tools/tokenizer_fixture.js > tests/tokenizer/fixture.json
//
// Three npm implementations: gpt-3-encoder (a port of OpenAI's encoder.py), gpt-tokenizer
// (r50k_base = GPT-2) and js-tiktoken ("gpt2"). They must agree with each other, or the
// script stops.
//
// All three split text with a JavaScript regex, whose \s is not Unicode White_Space: it
// misses U+0085 (NEXT LINE) and adds U+FEFF (BOM). OpenAI's encoder.py (Python `regex`) and
// tiktoken use White_Space. So the pre-token split is also done by /usr/bin/python3 with
// the `regex` module, exactly as encoder.py does it, and each Python pre-token is
// byte-pair-encoded alone by gpt-3-encoder. That is the fixture's "ids". Where the npm
// tokenizers say otherwise, the case carries their answer as "npm_ids" and a note.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');
const g3 = require('gpt-3-encoder');
const gt = require('gpt-tokenizer/encoding/r50k_base');
const { getEncoding } = require('js-tiktoken');
const tk = getEncoding('gpt2');

const cases = [
  // the classroom prompt and plain English
  'The weather is nice',
  'Hello, world!',
  'The quick brown fox jumps over the lazy dog.',
  'Attention is all you need. Transformers process every token at once.',
  'antidisestablishmentarianism supercalifragilisticexpialidocious',
  // contractions (GPT-2 splits the lower-case ones only)
  "I'm here", "they'll go", "don't stop", "We've won", "She'd know", "It's fine", "you're late",
  "I'M LOUD", "rock'n'roll", "'s", "Bob\u2019s bike",
  // Korean (a Hangul syllable is 3 bytes, often split across tokens)
  '철수는 영희에게 책을 주었다. 그는 기뻐했다.',
  '나는 오늘 밥을 먹었다',
  '안녕하세요',
  // emoji
  'I love 🍕 and 🎉!',
  '👨‍👩‍👧‍👦',
  '🇰🇷 flag',
  '😀😀😀',
  // digits
  '2024년 12월',
  '3.14159',
  '1234567890',
  '$1,000.00 and 42%',
  'abc123def',
  // tabs, newlines, runs of spaces
  'a\tb',
  '\tindented',
  'col1\tcol2\t\tcol3',
  'line1\nline2',
  'para\n\nnext',
  'windows\r\nline',
  'a   b',
  'trailing  ',
  '   leading',
  ' ',
  '    ',
  '\n',
  'def f(x):\n    return x**2\n',
  'Hello \n world',
  'x\n\n\n',
  '  \n  ',
  'Softmax turns scores into weights that sum to one.\n\nEach head looks at the\tsequence ' +
      'in its own way; the outputs are joined and projected back to the model width (768).',
  // punctuation
  'Wait... what?!',
  '(parentheses) [brackets] {braces}',
  'e-mail: foo@bar.com',
  'C++ && x->y != z;',
  'x "quoted" text',
  '---',
  // accented Latin and mixed scripts
  'café naïve résumé',
  'Ångström',
  'Dvořák',
  'Straße',
  'e\u0301',
  'Hello 世界 Привет مرحبا',
  '日本語のテキスト',
  'ελληνικά',
  '∑ x² ≤ ∞',
  // the special token's text is ordinary text here
  '<|endoftext|>',
  'Hello<|endoftext|>World',
  // Unicode white space beyond ASCII, and characters that only look like it
  'a\u00a0b',
  'a\u3000b',
  'a\u2028b',
  'a\u0085b',
  'end\u0085',
  'x\ufeffy',
  '\ufeffBOM',
  'a\u180eb',
  'a\u001cb',
  'a\u200bb',
  'a \u0085b',
  'a \ufeffb',
  'x  \u0085\u0085 y',
  'a \u180eb',
  'a \u2028b',
  'a \u00a0 b',
];

// A package's version, from its package.json (not every package exports that file).
function version(name) {
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const f = path.join(dir, 'package.json');
    if (fs.existsSync(f)) {
      const pkg = JSON.parse(fs.readFileSync(f, 'utf8'));
      if (pkg.name === name && pkg.version) return pkg.version;
    }
    const up = path.dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

function same(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// encoder.py's pre-tokenizer, run by Python's `regex` module: one list of pieces per case.
const PY = String.raw`
import json, sys, regex
pat = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")
json.dump([pat.findall(t) for t in json.load(sys.stdin)], sys.stdout)
`;
const pySplits = JSON.parse(execFileSync('/usr/bin/python3', ['-c', PY], { input: JSON.stringify(cases) }));

// gpt-3-encoder's own BPE for one pre-token, without its JavaScript split: Encoder.js is
// loaded once more with its internal bpe() exported.
function loadEncoderInternals() {
  const Module = require('module');
  const file = require.resolve('gpt-3-encoder/Encoder.js');
  const src = fs.readFileSync(file, 'utf8') +
              '\nmodule.exports.internals = { bpe, byte_encoder, encoder, encodeStr };\n';
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  m._compile(src, file);
  return m.exports.internals;
}
const g3i = loadEncoderInternals();
function bpePiece(piece) {
  const spelled = g3i.encodeStr(piece).map((x) => g3i.byte_encoder[x]).join('');
  return g3i.bpe(spelled).split(' ').map((x) => g3i.encoder[x]);
}

const out = [];
let disagreements = 0;
cases.forEach((text, k) => {
  const a = g3.encode(text);
  const b = gt.encode(text, { disallowedSpecial: new Set() });
  const c = tk.encode(text, [], []);
  if (!same(a, b) || !same(a, c)) {
    process.stderr.write(`npm tokenizers disagree on ${JSON.stringify(text)}:\n  gpt-3-encoder ${a}\n` +
                         `  gpt-tokenizer ${b}\n  js-tiktoken   ${c}\n`);
    process.exitCode = 1;
    return;
  }
  const py = [].concat(...pySplits[k].map(bpePiece));
  const entry = { text, ids: py };
  if (!same(py, a)) {
    entry.npm_ids = a;
    entry.note = 'npm tokenizers split with JavaScript \\s; encoder.py and tiktoken use Unicode White_Space';
    disagreements++;
    process.stderr.write(`encoder.py split differs from npm on ${JSON.stringify(text)}: ${py} vs ${a}\n`);
  }
  // (gpt-3-encoder decodes with TextDecoder, which drops a leading BOM.)
  if (g3.decode(py) !== text.replace(/^\ufeff/, '')) throw new Error(`ids do not decode back to ${JSON.stringify(text)}`);
  out.push(entry);
});

// Invisible characters (controls, format characters, spaces other than ' ') as \uXXXX.
function visibleJSON(v) {
  return JSON.stringify(v).replace(/[\p{Cc}\p{Cf}\p{Z}]/gu, (ch) => {
    if (ch === ' ') return ch;
    let out = '';
    for (let i = 0; i < ch.length; i++) out += '\\u' + ch.charCodeAt(i).toString(16).padStart(4, '0');
    return out;
  });
}

// One case per line, so a diff of the fixture reads well.
const head = {
  format: 'ttrace-tokenizer-fixture',
  version: 1,
  generated_by: 'tools/tokenizer_fixture.js',
  tokenizers: ['gpt-3-encoder@' + version('gpt-3-encoder'),
               'gpt-tokenizer@' + version('gpt-tokenizer') + ' (r50k_base)',
               'js-tiktoken@' + version('js-tiktoken') + ' (gpt2)',
               'pre-tokenizer split by Python regex (as encoder.py), BPE by gpt-3-encoder'],
  disagreements,
};
const lines = Object.entries(head).map(([k, v]) => ` ${JSON.stringify(k)}: ${JSON.stringify(v)},`);
process.stdout.write('{\n' + lines.join('\n') + '\n "cases": [\n' +
                     out.map((e) => '  ' + visibleJSON(e)).join(',\n') + '\n ]\n}\n');
