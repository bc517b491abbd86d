// Bundles the chat page into static files the Python package serves (src/turnwire/server/static).
// `node build.mjs [--out DIR]`. The output depends only on the sources and the locked packages, so
// a rebuild into a temporary folder must give the committed files byte for byte (tested).
import { build } from 'esbuild';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const out = resolve(outIndex >= 0 ? args[outIndex + 1] : join(here, '..', 'src', 'turnwire', 'server', 'static'));

const result = await build({
  entryPoints: { page: join(here, 'src', 'main.tsx'), style: join(here, 'src', 'page.css') },
  outdir: out,
  bundle: true,
  absWorkingDir: here,
  minify: true,
  format: 'iife',
  target: ['es2022'],
  platform: 'browser',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  charset: 'utf8',
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  define: { 'process.env.NODE_ENV': '"production"' },
});
await mkdir(out, { recursive: true });
await copyFile(join(here, 'src', 'index.html'), join(out, 'index.html'));

// Licences of what the bundle holds: every package that contributed bytes to page.js.
const packages = new Map();
const bundle = Object.entries(result.metafile.outputs).find(([path]) => path.endsWith('page.js'))[1];
for (const [path, input] of Object.entries(bundle.inputs)) {
  if (input.bytesInOutput === 0) continue;
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (match) packages.set(match[1], join(here, 'node_modules', match[1], 'package.json'));
}
const names = [...packages.keys()].sort();
const lines = ['Third-party code bundled into page.js (name, version, licence):', ''];
const texts = [];
for (const name of names) {
  const meta = JSON.parse(await readFile(packages.get(name), 'utf8'));
  lines.push(`${name} ${meta.version} ${meta.license ?? 'see package'}`);
  const folder = dirname(packages.get(name));
  const licence = (await readdir(folder)).filter((f) => /^licen[cs]e/i.test(f)).sort()[0];
  if (licence) texts.push(`\n===== ${name} (${licence}) =====\n\n${(await readFile(join(folder, licence), 'utf8')).trim()}\n`);
  else texts.push(`\n===== ${name} =====\n\nNo licence file in the package; package.json says: ${meta.license}.\n`);
}
await writeFile(join(out, 'THIRD_PARTY.txt'), lines.join('\n') + '\n' + texts.join(''));
