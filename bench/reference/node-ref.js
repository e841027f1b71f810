#!/usr/bin/env node
// node-ref.js — Node child_process reference for the mamsim benchmark.
//
// Same modes and output lines as mamsim-ref.c, but with child_process.fork and
// its JSON IPC channel (process.send / 'message'); the channel is the child's
// fd 3 (stdio: ignore, ignore, inherit, ipc).
//
//   node node-ref.js [--pin CPU] latency SIZE COUNT
//   node node-ref.js [--pin CPU] broker  SIZE COUNT
//   node node-ref.js [--pin CPU] fleet   N
//   (child: node node-ref.js --child echo | sender SIZE COUNT | sink COUNT | hello)
//
// Data messages are strings of SIZE 'x' characters; control messages are
// small objects: {t:'H'} hello, {t:'G'} go, {t:'A', n} ack (cumulative count),
// {t:'D'} done. Teardown: the parent calls child.disconnect(); the child's
// channel closes and it exits because nothing else keeps its loop alive.
'use strict';

const { fork, spawnSync } = require('child_process');
const fs = require('fs');

const BROKER_WINDOW = 256;   // max data messages sent by A and not yet acked
const BROKER_ACK_EVERY = 64; // B acks every 64 data messages

function die(msg) {
  process.stderr.write(`node-ref: ${msg}\n`);
  process.exit(2);
}

function num(s, what) {
  if (!/^\d+$/.test(s || '')) die(`bad ${what}: ${s}`);
  return Number(s);
}

// ------------------------------------------------------------------ child
function childMain(argv) {
  if (typeof process.send !== 'function') die('no IPC channel: not started by a parent');
  const role = argv[0];
  if (role === 'echo') {
    process.on('message', (m) => process.send(m));
  } else if (role === 'sender' && argv.length === 3) {
    const payload = 'x'.repeat(num(argv[1], 'SIZE'));
    const count = num(argv[2], 'COUNT');
    let sent = 0, acked = 0;
    const fill = () => {
      while (sent < count && sent - acked < BROKER_WINDOW) { process.send(payload); sent++; }
    };
    process.on('message', (m) => {
      if (m && m.t === 'G') fill();
      else if (m && m.t === 'A') { acked = m.n; fill(); }
    });
  } else if (role === 'sink' && argv.length === 2) {
    const count = num(argv[1], 'COUNT');
    let recv = 0;
    process.on('message', () => {
      recv++;
      if (recv === count) process.send({ t: 'D' });
      else if (recv % BROKER_ACK_EVERY === 0) process.send({ t: 'A', n: recv });
    });
  } else if (role === 'hello') {
    process.on('message', () => {});
  } else {
    die('unknown child role');
  }
  process.send({ t: 'H' });
}

// ----------------------------------------------------------------- parent
const children = [];
let exitFailures = 0;

function spawnChild(args) {
  const ch = fork(__filename, ['--child', ...args], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  ch.exited = new Promise((resolve) => {
    ch.on('exit', (code, sig) => {
      if (code !== 0 || sig) {
        process.stderr.write(`node-ref: child pid ${ch.pid} exited code=${code} signal=${sig}\n`);
        exitFailures++;
      }
      resolve();
    });
  });
  ch.on('error', (e) => { process.stderr.write(`node-ref: child error: ${e.message}\n`); exitFailures++; });
  children.push(ch);
  return ch;
}

async function finish() {
  for (const ch of children) if (ch.connected) ch.disconnect();
  await Promise.all(children.map((c) => c.exited));
  process.exitCode = exitFailures ? 1 : 0;
}

const hr = () => process.hrtime.bigint();

function pct(sorted, q) { // nearest rank
  let k = Math.ceil(q * sorted.length);
  if (k < 1) k = 1;
  if (k > sorted.length) k = sorted.length;
  return sorted[k - 1];
}

function runLatency(size, count) {
  const payload = 'x'.repeat(size);
  const samples = new Float64Array(count);
  let done = 0, t0 = 0n, helloed = false;
  const ch = spawnChild(['echo']);
  const send = () => { t0 = hr(); ch.send(payload); };
  ch.on('message', (m) => {
    if (!helloed) {
      if (m && m.t === 'H') { helloed = true; if (count) send(); else finish(); }
      return;
    }
    const t1 = hr();
    if (typeof m !== 'string' || m.length !== size) die('bad echo');
    samples[done++] = Number(t1 - t0);
    if (done < count) { send(); return; }
    samples.sort();
    console.log(`latency size=${size} count=${count} p50_us=${(pct(samples, 0.5) / 1e3).toFixed(1)} p99_us=${(pct(samples, 0.99) / 1e3).toFixed(1)}`);
    finish();
  });
}

function runBroker(size, count) {
  if (count === 0) die('broker COUNT must be > 0');
  const a = spawnChild(['sender', String(size), String(count)]);
  const b = spawnChild(['sink', String(count)]);
  let hellos = 0, t0 = 0n;
  const hello = () => {
    if (++hellos === 2) { t0 = hr(); a.send({ t: 'G' }); }
  };
  let aHello = false, bHello = false;
  a.on('message', (m) => {
    if (!aHello) { if (m && m.t === 'H') { aHello = true; hello(); } return; }
    b.send(m); // forward: parsed by the parent, re-serialized to B
  });
  b.on('message', (m) => {
    if (!bHello) { if (m && m.t === 'H') { bHello = true; hello(); } return; }
    if (m.t === 'A') a.send(m);
    else if (m.t === 'D') {
      const s = Number(hr() - t0) / 1e9;
      console.log(`broker size=${size} count=${count} items_per_s=${Math.round(count / s)} seconds=${s.toFixed(3)}`);
      finish();
    }
  });
}

function procStatusKb(pid, key) {
  try {
    const m = fs.readFileSync(`/proc/${pid}/status`, 'utf8').match(new RegExp(`^${key}:\\s+(\\d+)`, 'm'));
    return m ? Number(m[1]) : -1;
  } catch { return -1; }
}

function runFleet(n) {
  if (n <= 0) die('fleet N must be > 0');
  let hellos = 0;
  const t0 = hr();
  const fleet = [];
  for (let i = 0; i < n; i++) {
    const ch = spawnChild(['hello']);
    fleet.push(ch);
    let helloed = false;
    ch.on('message', (m) => {
      if (helloed || !m || m.t !== 'H') return;
      helloed = true;
      if (++hellos < n) return;
      const s = Number(hr() - t0) / 1e9;
      let rss = 0, hwm = 0, got = 0;
      for (const c of fleet) {
        const r = procStatusKb(c.pid, 'VmRSS');
        if (r >= 0) { rss += r; hwm += procStatusKb(c.pid, 'VmHWM'); got++; }
      }
      console.log(`fleet n=${n} seconds=${s.toFixed(3)} rss_per_app_mib=${(got ? rss / got / 1024 : 0).toFixed(2)}`);
      if (process.env.MAMSIM_REF_VERBOSE)
        process.stderr.write(`fleet: sampled ${got}/${n} children, mean VmHWM ${(got ? hwm / got / 1024 : 0).toFixed(2)} MiB\n`);
      finish();
    });
  }
}

function usage() {
  die('usage: node-ref.js [--pin CPU] latency SIZE COUNT | broker SIZE COUNT | fleet N');
}

function main() {
  const argv = process.argv.slice(2);
  if (argv[0] === '--child') return childMain(argv.slice(1));
  let i = 0;
  if (argv[0] === '--pin') {
    const cpu = num(argv[1], 'CPU');
    // Node has no sched_setaffinity: pin every thread of this process; forked
    // children inherit the main thread's affinity.
    const r = spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(process.pid)], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (r.status !== 0) die('taskset failed');
    i = 2;
  }
  const [mode, ...rest] = argv.slice(i);
  if (mode === 'latency' && rest.length === 2) return runLatency(num(rest[0], 'SIZE'), num(rest[1], 'COUNT'));
  if (mode === 'broker' && rest.length === 2) return runBroker(num(rest[0], 'SIZE'), num(rest[1], 'COUNT'));
  if (mode === 'fleet' && rest.length === 1) return runFleet(num(rest[0], 'N'));
  usage();
}

main();
