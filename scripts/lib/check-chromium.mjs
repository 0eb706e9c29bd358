// Smoke test: launch /usr/bin/chromium headless through playwright-core from
// .cache/node, open a data: URL, print its title. Usage: node scripts/lib/check-chromium.mjs
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(path.join(root, '.cache/node/'));
const { chromium } = require('playwright-core');

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage();
  await page.goto('data:text/html,<title>acd-chromium-ok</title><p>hi</p>');
  console.log(`${await page.title()} (chromium ${browser.version()})`);
} finally {
  await browser.close();
}
