// Copies Swagger UI (the npm package swagger-ui-dist, pinned in package-lock.json) into
// src/turnwire/server/swagger/, which is committed and ships in the wheel: `/docs` then needs no
// CDN. `node vendor-docs.mjs [--out DIR]`; the copy is byte for byte (tested).
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const out = resolve(outIndex >= 0 ? args[outIndex + 1] : join(here, '..', 'src', 'turnwire', 'server', 'swagger'));
const dist = join(here, 'node_modules', 'swagger-ui-dist');
const FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png'];

await mkdir(out, { recursive: true });
for (const name of FILES) await copyFile(join(dist, name), join(out, name));
const meta = JSON.parse(await readFile(join(dist, 'package.json'), 'utf8'));
const licence = (await readFile(join(dist, 'LICENSE'), 'utf8')).trim();
const bundled = (await readFile(join(dist, 'swagger-ui-bundle.js.LICENSE.txt'), 'utf8')).trim();
await writeFile(
  join(out, 'THIRD_PARTY.txt'),
  `swagger-ui-dist ${meta.version} ${meta.license}: ${FILES.join(', ')}\n\n${licence}\n\n` +
    `===== what swagger-ui-bundle.js holds (swagger-ui-bundle.js.LICENSE.txt) =====\n\n${bundled}\n`,
);
