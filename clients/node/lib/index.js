'use strict';
// The mamsim client for Node: a program the mamsim host starts talks to it on fd 3, a UNIX
// stream socket, in proto/mamsim/v2 frames (a 4-byte big-endian length, then the Frame). This
// module speaks it: run(onItem, name) says Hello, hands each item shared to the extension to
// onItem(item, ext) (which may return a promise), acknowledges it with the answer, answers
// Ping, and exits on Bye or when the host closes the channel. `ext` asks the host's services
// meanwhile: readFile, writeFile, policyQuery, identities; ext.container is the extension's
// own folder ($MAMSIM_CONTAINER). No dependency: the messages' code comes from schema.js,
// generated from the .proto (scripts/generate-node-proto).

const net = require('net');
const { encode, decode } = require('./codec');

const PROTOCOL_VERSION = 2;
const INTUNE_PREFIX = 'com.microsoft.intune.mam.';

/** One delivered item, as a behaviour sees it. */
class Item {
  constructor(deliver, content) {
    const it = deliver.item;
    this.id = it.id;
    this.types = it.type_identifiers;                 // most specific first
    this.fileName = it.file_name;
    this.filePath = it.payloadCase === 'file_path' ? it.file_path : '';
    this.content = content;                             // a Buffer (read through the host for a file)
    this.owner = it.ownership ? it.ownership.upn : ''; // '' = personal data
    this.managed = Boolean(it.ownership && it.ownership.managed);
    this.sender = deliver.sender_bundle_id;
    this.receivedAs = deliver.received_as;
  }
  get type() { return this.types[0] || ''; }
  /** The types without the com.microsoft.intune.mam. prefix of managed data. */
  get baseTypes() { return this.types.map((t) => (t.toLowerCase().startsWith(INTUNE_PREFIX) ? t.slice(INTUNE_PREFIX.length) : t)); }
  get baseType() { return this.baseTypes[0] || ''; }
  get size() { return this.content.length; }
  get text() { return this.content.toString('utf8'); }
}

/** The host's answer to a service call. */
class Verdict {
  constructor(v) {
    this.status = { STATUS_ALLOWED: 'allowed', STATUS_BLOCKED: 'blocked' }[v.status] || 'failed';
    this.reason = this.status === 'allowed' ? '' : String(v.reason).replace(/^REASON_/, '').toLowerCase().replace(/_/g, '-');
    this.explanation = v.explanation;
  }
  get allowed() { return this.status === 'allowed'; }
}

class Channel {
  constructor(fd = 3) {
    this.socket = new net.Socket({ fd, readable: true, writable: true });
    this.seq = 0;
    this.buffer = Buffer.alloc(0);
    this.maxFrame = 16 << 20;
    this.waiting = new Map();      // seq → resolve, for answers
    this.onFrame = () => {};
    this.onEnd = () => {};
    this.socket.on('data', (chunk) => this.received(chunk));
    this.socket.on('end', () => this.onEnd());
    this.socket.on('error', () => this.onEnd());
  }

  send(frame, replyTo = 0) {
    this.seq += 1;
    const payload = encode('mamsim.v2.Frame', { ...frame, seq: this.seq, reply_to: replyTo });
    const header = Buffer.alloc(4);
    header.writeUInt32BE(payload.length);
    this.socket.write(Buffer.concat([header, payload]));
    return this.seq;
  }

  /** Sends `frame` and resolves with the host's frame that answers it. */
  ask(frame) {
    const seq = this.send(frame);
    return new Promise((resolve) => this.waiting.set(seq, resolve));
  }

  received(chunk) {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 4) {
      const length = this.buffer.readUInt32BE(0);
      if (length > this.maxFrame) throw new Error(`the host sent a ${length}-byte frame (limit ${this.maxFrame})`);
      if (this.buffer.length < 4 + length) return;
      const frame = decode('mamsim.v2.Frame', this.buffer.subarray(4, 4 + length));
      this.buffer = this.buffer.subarray(4 + length);
      const answer = this.waiting.get(frame.reply_to);
      if (frame.reply_to && answer) {
        this.waiting.delete(frame.reply_to);
        answer(frame);
      } else {
        this.onFrame(frame);
      }
    }
  }
}

/** What an extension may ask of the host while it handles an item. */
class Extension {
  constructor(channel) {
    this.channel = channel;
    /** The extension's data container (its Documents/, Inbox/…), where it may write. */
    this.container = process.env.MAMSIM_CONTAINER || '';
  }

  async call(call) {
    const frame = await this.channel.ask({ service_request: call });
    if (frame.bodyCase === 'error') return { verdict: new Verdict({ status: 'STATUS_FAILED', reason: frame.error.code, explanation: frame.error.message }) };
    return { verdict: new Verdict(frame.service_result.verdict), result: frame.service_result };
  }

  /** A file of the container (Documents/x, Inbox/…, group:<id>/x), decrypted; null when refused. */
  async readFile(path) {
    const { verdict, result } = await this.call({ read_file: { path } });
    return verdict.allowed && result && result.valueCase === 'data' ? result.data : null;
  }

  /** Writes a file of the container owned by `owner` (undefined: our identity; '': personal). */
  async writeFile(path, data, owner) {
    const request = { path, data: Buffer.from(data) };
    if (owner !== undefined && owner !== null) request.owner = { account: owner };
    return (await this.call({ write_file: request })).verdict;
  }

  /** One of IntuneMAMPolicy's switches ('spotlight', 'contact_sync', 'file_encryption', …). */
  async policyQuery(setting, account) {
    const request = { setting: `POLICY_SETTING_${setting.toUpperCase()}` };
    if (account !== undefined && account !== null) request.as = { account };
    return (await this.call({ policy_query: request })).verdict;
  }

  /** The process and UI identities the host holds for us, and the accounts signed in. */
  async identities() {
    const frame = await this.channel.ask({ get_identity: {} });
    const i = frame.identity_info || {};
    return { process: i.process_identity || '', ui: i.ui_identity || '', signedIn: i.signed_in || [] };
  }
}

function log(name, line) { process.stderr.write(`${name}: ${line}\n`); }

/** Serves the host until Bye or the end of the channel, asking onItem about each item. */
function run(onItem, name, runtime = `${name}/node`) {
  let channel;
  try {
    channel = new Channel(3);
  } catch (error) {
    log(name, `cannot use fd 3 (${error.message}); the mamsim host starts this program with its channel there`);
    process.exit(2);
  }
  const ext = new Extension(channel);
  const accepted = new Set();
  let queue = Promise.resolve();
  channel.onEnd = () => process.exit(0);
  channel.onFrame = (frame) => {
    // Items are handled one after another, in the order they came.
    queue = queue.then(() => handle(frame)).catch((error) => { log(name, `${error.stack || error}`); process.exit(1); });
  };
  async function handle(frame) {
    switch (frame.bodyCase) {
      case 'welcome':
        if (frame.welcome.max_frame_size) channel.maxFrame = frame.welcome.max_frame_size;
        break;
      case 'deliver': {
        const it = frame.deliver.item;
        let content = it.payloadCase === 'inline_data' ? it.inline_data : await ext.readFile(it.file_path);
        let ok = false;
        if (content === null) {
          log(name, `cannot read ${it.file_path}; declining item ${it.id}`);
        } else if (accepted.has(it.id)) {
          ok = true;                                   // a re-sent delivery: not shown twice
        } else {
          const item = new Item(frame.deliver, content);
          try {
            ok = Boolean(await onItem(item, ext));
          } catch (error) {
            log(name, `onItem threw for item ${it.id}; declining it: ${error.stack || error}`);
          }
          if (ok) accepted.add(it.id);
          log(name, `${ok ? 'accepted' : 'declined'} item ${it.id} (${item.types.join(',')}, ${item.size} bytes, owner ${item.owner || 'unmanaged'}) from ${item.sender}`);
        }
        channel.send({ deliver_ack: { item_id: it.id, accepted: ok } }, frame.seq);
        break;
      }
      case 'ping':
        channel.send({ ping: { payload: frame.ping.payload } }, frame.seq);
        break;
      case 'command':
        channel.send({ command_result: { error: { code: 'REASON_BAD_REQUEST', message: `${name} takes no commands` } } }, frame.seq);
        break;
      case 'error':
        log(name, `the host reported ${frame.error.code}: ${frame.error.message}`);
        break;
      case 'bye':
        process.exit(0);
        break;
      default:
        channel.send({ error: { code: 'REASON_BAD_REQUEST', message: `a plugin does not accept ${frame.bodyCase} frames` } }, frame.seq);
    }
  }
  channel.send({ hello: { protocol_version: PROTOCOL_VERSION, pid: process.pid, runtime } });
}

module.exports = { run, Item, Verdict, Extension, Channel, PROTOCOL_VERSION, encode, decode };
