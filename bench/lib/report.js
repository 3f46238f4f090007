/** The one printed table of a run. */

const num = (x, digits = 0) => (x === null || x === undefined || Number.isNaN(x) ? '-' : x.toFixed(digits));

function row(cells, widths) {
  return cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ');
}

export function printTable(results) {
  const { figures, targets, git, node, cpus, loadavg, options } = results;
  console.log(
    `\npayreq-sandbox bench  commit ${git.commit}${git.srcDirty ? ' (src modified)' : ''}  node ${node}  ${cpus} cpus  ` +
      `load avg ${loadavg.map((l) => l.toFixed(2)).join(' ')}  ${options.connections} connections, ${options.duration} s per run, ` +
      `median of ${options.rounds} round(s) for the key rows (*)\n`,
  );
  const widths = [46, 8, 13, 6, 7, 10, 7, 8, 6];
  console.log(row(['workload', 'req/s', 'x bare', 'p50 ms', 'p99 ms', 'CPU us/req', 'RSS MB', 'non-2xx', 'spread'], widths));
  console.log('-'.repeat(widths.reduce((a, b) => a + b + 2, -2)));
  for (const [name, f] of Object.entries(figures)) {
    if (f.startupMs !== undefined) continue;
    const vs = f.vs === 'bare-get' ? ' GET' : f.vs === 'bare-post' ? ' POST' : '';
    const label = `${f.label}${f.rounds > 1 ? ' *' : ''}`;
    const extra = name === 'mixed' ? ` (${num(f.reqPerSec / 4)} flows/s)` : '';
    console.log(
      row(
        [label + extra, num(f.reqPerSec), f.ratio === null ? '1.00' : `${num(f.ratio, 2)}${vs}`, num(f.p50), num(f.p99), num(f.cpuUsPerReq), num(f.rssMB), f.non2xx, f.rounds > 1 ? `${num(f.spread * 100)}%` : ''],
        widths,
      ),
    );
  }
  console.log('');
  console.log(row(['start-up', 'ms', '', '', '', '', 'RSS MB', 'peak MB', ''], widths));
  console.log('-'.repeat(widths.reduce((a, b) => a + b + 2, -2)));
  for (const f of Object.values(figures)) {
    if (f.startupMs === undefined) continue;
    console.log(row([`${f.label}${f.rounds > 1 ? ' *' : ''}`, num(f.startupMs), '', '', '', '', num(f.rssMB), num(f.peakMB), ''], widths));
  }
  printPostgres(figures);
  console.log('\ntargets (SPEC 20: the lean request path; issues 5, 9 and 10)');
  for (const t of targets) {
    const value =
      t.value === null ? '-' : t.unit === 'x' ? `${t.value.toFixed(2)} x` : `${num(t.value, (t.unit === 'ms' || t.unit === 'KB') && t.value < 100 ? 1 : 0)} ${t.unit}`;
    console.log(`  ${t.verdict.padEnd(4)}  ${t.name.padEnd(56)} ${value}${t.note ? `  (${t.note})` : ''}`);
  }
}

/**
 * File store against PostgreSQL, one instance against two behind the round-robin proxy (which
 * opens a new upstream connection per request): each row against bare Hono direct, and the
 * 2-instance rows also against two bare servers behind the same proxy. CPU per request: node
 * (all instances), the PostgreSQL cluster (postmaster and backends), the proxy (bench process).
 */
function printPostgres(figures) {
  const pgRows = Object.values(figures).filter((f) => f.store === 'postgres');
  if (pgRows.length === 0) return;
  const widths = [40, 8, 11, 11, 6, 7, 8, 7, 8];
  console.log('\nPostgreSQL store (issue 9): x bare = against bare Hono direct; x via proxy = against 2 bare Hono behind the same proxy');
  console.log(row(['workload', 'req/s', 'x bare', 'x via proxy', 'p50 ms', 'p99 ms', 'node us', 'PG us', 'proxy us'], widths));
  console.log('-'.repeat(widths.reduce((a, b) => a + b + 2, -2)));
  const order = ['bare-get', 'bare-get-proxy', 'status', 'status-pg', 'status-pg-2', 'bare-post', 'bare-post-proxy', 'create', 'create-pg', 'create-pg-2'];
  for (const name of order) {
    const f = figures[name];
    if (!f) continue;
    const vs = f.vs === 'bare-get' ? ' GET' : f.vs === 'bare-post' ? ' POST' : '';
    const label = name === 'status' || name === 'create' ? `${f.label}, file store` : f.label;
    console.log(
      row(
        [
          label,
          num(f.reqPerSec),
          f.ratio === null ? '1.00' : `${num(f.ratio, 2)}${vs}`,
          f.ratioProxy === undefined ? '' : num(f.ratioProxy, 2),
          num(f.p50),
          num(f.p99),
          num(f.cpuUsPerReq),
          f.pgCpuUsPerReq === undefined ? '' : num(f.pgCpuUsPerReq),
          f.proxyCpuUsPerReq === undefined ? '' : num(f.proxyCpuUsPerReq),
        ],
        widths,
      ),
    );
  }
}
