// Copies the files the book loads at run time into public/ (mystmd copies public/ into _build/html),
// so the static site needs no network access:
//   public/katex/         KaTeX stylesheet and fonts (the theme's default points at a CDN)
//   public/thebe-core.*   thebe-core's browser bundle, which draws rich notebook outputs (HTML tables)
//   public/favicon.ico    the book's icon, drawn here (32x32 PNG inside an ICO container)
//   public/requirejs/     require.js 2.3.6 (npm `requirejs`), which thebe-core's widget manager loads before
//                         any widget class on a live page (it asks a CDN; app/thebe-offline.ts
//                         answers that request with this copy)
//   public/rebalance-live.json  `{"live": false}`: no Jupyter server on a plain static site; `make serve`
//                         (site/serve.py) answers this URL with its local server (app/components/LivePage.tsx)
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');

const root = path.resolve(__dirname, '..');
const pub = path.join(root, 'public');
fs.mkdirSync(pub, { recursive: true });

function copyDir(src, dest, keep = () => true) {
  fs.mkdirSync(dest, { recursive: true });
  let n = 0;
  for (const entry of fs.readdirSync(src, { withFileTypes: true })) {
    const from = path.join(src, entry.name);
    const to = path.join(dest, entry.name);
    if (entry.isDirectory()) n += copyDir(from, to, keep);
    else if (keep(entry.name)) {
      fs.copyFileSync(from, to);
      n += 1;
    }
  }
  return n;
}

const katexDist = path.join(path.dirname(require.resolve('katex/package.json')), 'dist');
fs.rmSync(path.join(pub, 'katex'), { recursive: true, force: true });
fs.mkdirSync(path.join(pub, 'katex'), { recursive: true });
fs.copyFileSync(path.join(katexDist, 'katex.min.css'), path.join(pub, 'katex', 'katex.min.css'));
const fonts = copyDir(path.join(katexDist, 'fonts'), path.join(pub, 'katex', 'fonts'), (f) =>
  /\.(woff2|woff|ttf)$/.test(f),
);

const thebeLib = path.join(path.dirname(require.resolve('thebe-core/package.json')), 'dist', 'lib');
const thebe = copyDir(thebeLib, pub, (f) => /\.(js|css)$/.test(f) || f.endsWith('.LICENSE.txt'));

// favicon: four partition bars of different lengths on a dark rounded square.
function crc32(buf) {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}
function iconPng(size) {
  const colors = [[56, 189, 248], [52, 211, 153], [251, 191, 36], [248, 113, 113]];
  const lengths = [0.75, 0.55, 0.85, 0.4];
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = [0];
    for (let x = 0; x < size; x++) {
      const r = size * 0.18; // corner radius
      const cx = Math.min(Math.max(x + 0.5, r), size - r);
      const cy = Math.min(Math.max(y + 0.5, r), size - r);
      const inside = (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= r * r;
      let px = inside ? [28, 25, 23, 255] : [0, 0, 0, 0];
      const band = Math.floor(((y / size) - 0.14) / 0.18);
      const inBand = band >= 0 && band < 4 && ((y / size) - 0.14) % 0.18 < 0.13;
      if (inside && inBand && x / size >= 0.16 && x / size < 0.16 + 0.68 * lengths[band]) {
        px = [...colors[band], 255];
      }
      row.push(...px);
    }
    rows.push(Buffer.from(row));
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
const png = iconPng(32);
const header = Buffer.alloc(22);
header.writeUInt16LE(0, 0); // reserved
header.writeUInt16LE(1, 2); // type: icon
header.writeUInt16LE(1, 4); // one image
header[6] = 32; // width
header[7] = 32; // height
header.writeUInt16LE(1, 10); // colour planes
header.writeUInt16LE(32, 12); // bits per pixel
header.writeUInt32LE(png.length, 14);
header.writeUInt32LE(22, 18); // offset of the image data
fs.writeFileSync(path.join(pub, 'favicon.ico'), Buffer.concat([header, png]));

const requireDir = path.dirname(require.resolve('requirejs/package.json'));
fs.rmSync(path.join(pub, 'requirejs'), { recursive: true, force: true });
fs.mkdirSync(path.join(pub, 'requirejs'), { recursive: true });
fs.copyFileSync(path.join(requireDir, 'require.js'), path.join(pub, 'requirejs', 'require.js'));

fs.writeFileSync(path.join(pub, 'rebalance-live.json'), JSON.stringify({ live: false }) + '\n');

console.log(`public/: katex.min.css + ${fonts} fonts, ${thebe} thebe-core files, favicon.ico, requirejs/require.js, rebalance-live.json`);
