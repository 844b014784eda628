// Run inside the throw-away npm project of pack.test.ts, by the Node under test: starts the installed
// simulator through its bin (`selling-kit-simulator --demo`), creates a listing and lists the shop's
// listings through the installed client, and prints one JSON line: the Node version, the new product's id
// and the SKUs listed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createClient } from '@selling-kit/api-client';

const bin = join(process.cwd(), 'node_modules', '.bin', 'selling-kit-simulator');
const sim = spawn(process.execPath, [bin, '--demo', '--port', '0'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
const url = await new Promise((resolve, reject) => {
  sim.stdout.on('data', (chunk) => {
    out += chunk;
    const found = /API:\s+(http:\/\/\S+)/.exec(out);
    if (found && /Demo API key:\s+\S+/.test(out)) resolve(found[1]);
  });
  sim.on('exit', (code) => reject(new Error(`the simulator exited (${code}): ${out}`)));
});
try {
  const client = createClient({ apiKey: /Demo API key:\s+(\S+)/.exec(out)[1], baseUrl: url });
  const created = await client.products.create({
    sku: 'PACK-1',
    address: { country_code: 'GB' },
    description: 'Vintage tee from the packed client #nike',
    price_currency: 'GBP',
    price_amount: '20.00',
    national_shipping_cost: '3.50',
    quantity: 1,
    pictures: [{ url: `${url}/demo-assets/tee-black.png` }],
    department: 'menswear',
    product_type: 'tshirts',
    condition: 'used_good',
    brand_name: 'Nike',
  });
  const skus = [];
  for await (const product of client.products.list()) skus.push(product.sku);
  console.log(JSON.stringify({ node: process.version, productId: created.product_id, skus }));
} finally {
  sim.kill('SIGTERM');
}
