import { format } from '@cfworker/json-schema';
const [name, unit, n, prefix, suffix] = process.argv.slice(2);
const s = prefix + unit.repeat(+n) + suffix;
const t0 = performance.now(); const r = format[name](s); console.log(name, JSON.stringify(unit), n, r, (performance.now() - t0).toFixed(1) + 'ms');
