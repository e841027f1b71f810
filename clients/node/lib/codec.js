'use strict';
// The protobuf binary encoding of the messages in schema.js (generated from the .proto):
// varints for integers, booleans and enums, length-delimited strings, bytes and messages,
// packed repeated scalars. Objects use the .proto's field names; enums are their value names
// ("STATUS_ALLOWED"); bytes are Buffers; 64-bit integers are Numbers (exact below 2^53) or
// BigInts when larger. A oneof is the one of its fields that is set; decode also says which in
// `<oneof>Case`. Unknown fields are skipped, as protobuf does.

const schema = require('./schema');

const SCALAR_VARINT = new Set(['int32', 'int64', 'uint32', 'uint64', 'bool', 'enum']);

function fieldsOf(type) {
  const fields = schema.messages[type];
  if (!fields) throw new Error(`no message ${type} in mamsim.v2`);
  return fields;
}

// ---- encoding ----

function varint(value, out) {
  let v = BigInt.asUintN(64, BigInt(value));
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

function key(number, wireType, out) { varint((number << 3) | wireType, out); }

function enumNumber(field, value) {
  if (typeof value === 'number') return value;
  const n = schema.enums[field.enum][value];
  if (n === undefined) throw new Error(`${value} is not a value of ${field.enum} (field ${field.name})`);
  return n;
}

function scalarVarint(field, value) {
  if (field.type === 'bool') return value ? 1 : 0;
  if (field.type === 'enum') return enumNumber(field, value);
  return value;
}

function lengthDelimited(number, bytes, out) {
  key(number, 2, out);
  varint(bytes.length, out);
  for (const b of bytes) out.push(b);
}

function encodeField(field, value, out) {
  if (field.repeated) {
    if (SCALAR_VARINT.has(field.type)) {
      const packed = [];
      for (const v of value) varint(scalarVarint(field, v), packed);
      if (packed.length) lengthDelimited(field.number, packed, out);
      return;
    }
    for (const v of value) encodeField({ ...field, repeated: false }, v, out);
    return;
  }
  if (SCALAR_VARINT.has(field.type)) {
    key(field.number, 0, out);
    varint(scalarVarint(field, value), out);
  } else if (field.type === 'string') {
    lengthDelimited(field.number, Buffer.from(String(value), 'utf8'), out);
  } else if (field.type === 'bytes') {
    lengthDelimited(field.number, Buffer.from(value), out);
  } else if (field.type === 'message') {
    lengthDelimited(field.number, encode(field.message, value), out);
  } else {
    throw new Error(`field ${field.name} has a type (${field.type}) the client does not encode`);
  }
}

/** The binary encoding of `obj` as a message of `type` ("mamsim.v2.Frame"). */
function encode(type, obj) {
  const out = [];
  for (const field of fieldsOf(type)) {
    const value = obj[field.name];
    if (value === undefined || value === null) continue;
    // proto3: a scalar at its default value is not written, except inside a oneof.
    if (!field.oneof && !field.repeated && field.type !== 'message' &&
        (value === 0 || value === 0n || value === false || value === '' || (field.type === 'bytes' && value.length === 0) ||
         (field.type === 'enum' && enumNumber(field, value) === 0))) continue;
    encodeField(field, value, out);
  }
  return Buffer.from(out);
}

// ---- decoding ----

function readVarint(buf, at) {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (at >= buf.length) throw new Error('a varint runs past the end of the message');
    const b = buf[at++];
    result |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [result, at];
    shift += 7n;
    if (shift > 63n) throw new Error('a varint is longer than 10 bytes');
  }
}

function scalarFrom(field, raw) {
  switch (field.type) {
    case 'bool': return raw !== 0n;
    case 'int32': return Number(BigInt.asIntN(32, raw));
    case 'int64': { const v = BigInt.asIntN(64, raw); return v >= -(2n ** 53n) && v <= 2n ** 53n ? Number(v) : v; }
    case 'uint32': return Number(raw & 0xffffffffn);
    case 'uint64': return raw <= 2n ** 53n ? Number(raw) : raw;
    case 'enum': {
      const n = Number(BigInt.asIntN(32, raw));
      const names = schema.enums[field.enum];
      return Object.keys(names).find((k) => names[k] === n) ?? n;
    }
    default: throw new Error(`field ${field.name} is not a varint`);
  }
}

function defaults(type) {
  const obj = {};
  for (const f of fieldsOf(type)) {
    if (f.oneof) continue;
    if (f.repeated) obj[f.name] = [];
    else if (f.type === 'string') obj[f.name] = '';
    else if (f.type === 'bytes') obj[f.name] = Buffer.alloc(0);
    else if (f.type === 'bool') obj[f.name] = false;
    else if (f.type === 'enum') obj[f.name] = scalarFrom(f, 0n);
    else if (f.type !== 'message') obj[f.name] = 0;
  }
  return obj;
}

/** The message of `type` that `buf` (a Buffer) encodes. */
function decode(type, buf) {
  const fields = fieldsOf(type);
  const byNumber = new Map(fields.map((f) => [f.number, f]));
  const obj = defaults(type);
  let at = 0;
  while (at < buf.length) {
    let k;
    [k, at] = readVarint(buf, at);
    const number = Number(k >> 3n);
    const wireType = Number(k & 7n);
    const field = byNumber.get(number);
    let raw;
    let bytes;
    if (wireType === 0) {
      [raw, at] = readVarint(buf, at);
    } else if (wireType === 2) {
      let length;
      [length, at] = readVarint(buf, at);
      const end = at + Number(length);
      if (end > buf.length) throw new Error('a field runs past the end of the message');
      bytes = buf.subarray(at, end);
      at = end;
    } else if (wireType === 1) {
      at += 8;
      continue;
    } else if (wireType === 5) {
      at += 4;
      continue;
    } else {
      throw new Error(`wire type ${wireType} is not one protobuf writes`);
    }
    if (!field) continue;
    let value;
    if (field.repeated && SCALAR_VARINT.has(field.type) && bytes) {
      let p = 0;
      while (p < bytes.length) {
        let v;
        [v, p] = readVarint(bytes, p);
        obj[field.name].push(scalarFrom(field, v));
      }
      continue;
    }
    if (wireType === 0) value = scalarFrom(field, raw);
    else if (field.type === 'string') value = bytes.toString('utf8');
    else if (field.type === 'bytes') value = Buffer.from(bytes);
    else if (field.type === 'message') value = decode(field.message, bytes);
    else continue;
    if (field.repeated) obj[field.name].push(value);
    else obj[field.name] = value;
    if (field.oneof) {
      // The last of a oneof's fields wins, as protobuf says.
      const previous = obj[`${field.oneof}Case`];
      if (previous && previous !== field.name) delete obj[previous];
      obj[`${field.oneof}Case`] = field.name;
    }
  }
  return obj;
}

module.exports = { encode, decode, schema };
