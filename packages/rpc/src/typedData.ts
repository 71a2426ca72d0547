/**
 * EIP-712 typed data, as eth_signTypedData_v4 takes it: `{ types, primaryType, domain, message }`
 * hashed to the digest a wallet signs, keccak256(0x1901 ‖ domainSeparator ‖ hashStruct(message)).
 * Arrays and nested structs are encoded as the EIP says (v4); an EIP712Domain type not given is
 * made from the domain's fields, in the EIP's order, as viem and ethers do. A malformed value is an
 * invalid-params error naming where it is.
 */
import { bigIntToBytes, concatBytes, hexToBytes, setLengthLeft, setLengthRight, utf8ToBytes } from '@ethereumjs/util';
import { keccak256 } from 'ethereum-cryptography/keccak';

import { invalidParams } from './errors';

type Field = { name: string; type: string };
type Types = Record<string, Field[]>;

export interface TypedData {
  types: Types;
  primaryType: string;
  domain: Record<string, unknown>;
  message: Record<string, unknown>;
}

const DOMAIN_FIELDS: Field[] = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
];

const bad = (where: string, what: string) => invalidParams(`param 2 (typedData${where}) ${what}`);

/** Checks the shape of typed data (a JSON object, or its text). */
export function parseTypedData(value: unknown): TypedData {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw bad('', 'must be typed data (an object, or its JSON text)');
    }
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('', 'must be typed data (an object)');
  const o = v as Record<string, unknown>;
  if (typeof o.types !== 'object' || o.types === null) throw bad('.types', 'must be an object of struct types');
  for (const [name, fields] of Object.entries(o.types as object)) {
    if (!Array.isArray(fields) || fields.some((f) => typeof f?.name !== 'string' || typeof f?.type !== 'string'))
      throw bad(`.types.${name}`, 'must be a list of { name, type }');
  }
  if (typeof o.primaryType !== 'string') throw bad('.primaryType', 'must be a type name');
  if (typeof o.domain !== 'object' || o.domain === null) throw bad('.domain', 'must be an object');
  if (typeof o.message !== 'object' || o.message === null) throw bad('.message', 'must be an object');
  const types = o.types as Types;
  if (o.primaryType !== 'EIP712Domain' && types[o.primaryType] === undefined)
    throw bad('.primaryType', `names no type in types: "${o.primaryType}"`);
  return o as unknown as TypedData;
}

/** The digest eth_signTypedData_v4 signs. */
export function typedDataDigest(data: TypedData): Uint8Array {
  const domainFields = data.types.EIP712Domain ?? DOMAIN_FIELDS.filter((f) => data.domain[f.name] !== undefined);
  const types: Types = { ...data.types, EIP712Domain: domainFields };
  const domain = hashStruct(types, 'EIP712Domain', data.domain, '.domain');
  if (data.primaryType === 'EIP712Domain') return keccak256(concatBytes(Uint8Array.of(0x19, 0x01), domain));
  const message = hashStruct(types, data.primaryType, data.message, '.message');
  return keccak256(concatBytes(Uint8Array.of(0x19, 0x01), domain, message));
}

const baseType = (type: string) => type.replace(/(\[\d*\])+$/, '');

/** The struct types `type` refers to, itself first. */
function dependencies(types: Types, type: string, found: string[] = []): string[] {
  const base = baseType(type);
  if (found.includes(base) || types[base] === undefined) return found;
  found.push(base);
  for (const f of types[base]) dependencies(types, f.type, found);
  return found;
}

function encodeType(types: Types, type: string): string {
  const [primary, ...rest] = dependencies(types, type);
  return [primary, ...rest.sort()].map((t) => `${t}(${types[t].map((f) => `${f.type} ${f.name}`).join(',')})`).join('');
}

function hashStruct(types: Types, type: string, value: unknown, where: string): Uint8Array {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad(where, `must be a ${type} object`);
  const fields = types[type];
  const v = value as Record<string, unknown>;
  const parts = [keccak256(utf8ToBytes(encodeType(types, type)))];
  for (const f of fields) {
    if (v[f.name] === undefined) throw bad(`${where}.${f.name}`, `is missing (${f.type})`);
    parts.push(encodeValue(types, f.type, v[f.name], `${where}.${f.name}`));
  }
  return keccak256(concatBytes(...parts));
}

function encodeValue(types: Types, type: string, value: unknown, where: string): Uint8Array {
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array !== null) {
    if (!Array.isArray(value)) throw bad(where, `must be an array (${type})`);
    if (array[2] !== '' && value.length !== Number(array[2])) throw bad(where, `must hold ${array[2]} items`);
    return keccak256(concatBytes(...value.map((item, i) => encodeValue(types, array[1], item, `${where}[${i}]`))));
  }
  if (types[type] !== undefined) return hashStruct(types, type, value, where);
  if (type === 'string') {
    if (typeof value !== 'string') throw bad(where, 'must be a string');
    return keccak256(utf8ToBytes(value));
  }
  if (type === 'bytes') return keccak256(hexData(value, where));
  if (type === 'bool') {
    if (typeof value !== 'boolean') throw bad(where, 'must be true or false');
    return setLengthLeft(Uint8Array.of(value ? 1 : 0), 32);
  }
  if (type === 'address') {
    const bytes = hexData(value, where);
    if (bytes.length !== 20) throw bad(where, 'must be a 20-byte address');
    return setLengthLeft(bytes, 32);
  }
  const fixed = /^bytes(\d+)$/.exec(type);
  if (fixed !== null) {
    const bytes = hexData(value, where);
    if (bytes.length !== Number(fixed[1])) throw bad(where, `must be ${fixed[1]} bytes`);
    return setLengthRight(bytes, 32);
  }
  const int = /^(u?)int(\d*)$/.exec(type);
  if (int !== null) {
    const bits = BigInt(int[2] === '' ? 256 : Number(int[2]));
    const n = integer(value, where);
    const signed = int[1] === '';
    const [min, max] = signed ? [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n] : [0n, (1n << bits) - 1n];
    if (n < min || n > max) throw bad(where, `is out of range for ${type}`);
    return setLengthLeft(bigIntToBytes(BigInt.asUintN(256, n)), 32);
  }
  throw bad(where, `has an unknown type "${type}"`);
}

function hexData(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value))
    throw bad(where, 'must be 0x-prefixed hex bytes');
  return hexToBytes(value as `0x${string}`);
}

function integer(value: unknown, where: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^(-?[0-9]+|0x[0-9a-fA-F]+)$/.test(value)) return BigInt(value);
  throw bad(where, 'must be an integer (a number, a decimal or 0x-hex string)');
}
