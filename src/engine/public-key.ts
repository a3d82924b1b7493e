/**
 * Public-key signatures (an extension of spec 2.2.1, docs/signature-extensions.md): the Secret Key
 * holds the provider's public key; verification is WebCrypto's. Pure apart from crypto.subtle.
 *
 * Key formats accepted (whitespace around ignored):
 *   ed25519            64 hex characters (Discord's "public key"), or the 32 bytes in base64, or SPKI (PEM or base64 DER)
 *   ecdsa-p256-sha256  SPKI as PEM or base64 DER (SendGrid's "verification key"), or the uncompressed point (65 bytes, hex or base64)
 *   rsa-sha256         SPKI as PEM ("-----BEGIN PUBLIC KEY-----") or base64 DER
 */
import { PUBLIC_KEY_ALGORITHMS } from '../../schemas/signature';
import type { PublicKeyAlgorithm } from '../../schemas/ticket-types';
import { fromBase64, fromHex } from '../../schemas/encoding';

export const isPublicKeyAlgorithm = (algorithm: unknown): algorithm is PublicKeyAlgorithm => (PUBLIC_KEY_ALGORITHMS as readonly unknown[]).includes(algorithm);

type ImportParams = Parameters<SubtleCrypto['importKey']>[2];

const IMPORT: Record<PublicKeyAlgorithm, ImportParams> = {
  ed25519: { name: 'Ed25519' },
  'ecdsa-p256-sha256': { name: 'ECDSA', namedCurve: 'P-256' },
  'rsa-sha256': { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
};

const VERIFY: Record<PublicKeyAlgorithm, Parameters<SubtleCrypto['verify']>[0]> = {
  ed25519: { name: 'Ed25519' },
  'ecdsa-p256-sha256': { name: 'ECDSA', hash: 'SHA-256' },
  'rsa-sha256': { name: 'RSASSA-PKCS1-v1_5' },
};

/** The key's bytes and whether they are a raw key (else SPKI DER); undefined when the text is no key encoding. */
function keyBytes(algorithm: PublicKeyAlgorithm, stored: string): { format: 'raw' | 'spki'; bytes: Uint8Array } | undefined {
  const text = stored.trim();
  if (/^-----BEGIN /.test(text)) {
    const pem = /^-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----$/.exec(text);
    const bytes = pem ? fromBase64(pem[1].replace(/\s+/g, '')) : undefined;
    return bytes ? { format: 'spki', bytes } : undefined;
  }
  const bytes = /^(?:[0-9a-fA-F]{2})+$/.test(text) ? fromHex(text) : fromBase64(text.replace(/\s+/g, ''));
  if (!bytes) return undefined;
  if (algorithm === 'ed25519' && bytes.length === 32) return { format: 'raw', bytes };
  if (algorithm === 'ecdsa-p256-sha256' && bytes.length === 65 && bytes[0] === 4) return { format: 'raw', bytes };
  return { format: 'spki', bytes };
}

/** The algorithm OIDs an SPKI must name (DER bytes of the OID's value), and for ECDSA the curve. */
const SPKI_OIDS: Record<PublicKeyAlgorithm, { oid: number[]; curve?: number[] }> = {
  ed25519: { oid: [0x2b, 0x65, 0x70] },
  'ecdsa-p256-sha256': { oid: [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01], curve: [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07] },
  'rsa-sha256': { oid: [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01] },
};

/** One DER element at `at`: its tag, and where its content starts and ends. */
function derElement(der: Uint8Array, at: number): { tag: number; start: number; end: number } | undefined {
  const tag = der[at];
  let length = der[at + 1];
  let start = at + 2;
  if (tag === undefined || length === undefined) return undefined;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count < 1 || count > 3) return undefined;
    length = 0;
    for (let i = 0; i < count; i++) length = (length << 8) | (der[start + i] ?? 0);
    start += count;
  }
  return start + length <= der.length ? { tag, start, end: start + length } : undefined;
}

const sameBytes = (bytes: Uint8Array, expected: number[]) => bytes.length === expected.length && expected.every((b, i) => bytes[i] === b);

/**
 * Whether an SPKI names this algorithm (and curve): the runtime's import does not check it for every
 * algorithm, so an ECDSA key could otherwise import as an Ed25519 one.
 */
function spkiNames(algorithm: PublicKeyAlgorithm, der: Uint8Array): boolean {
  const outer = derElement(der, 0);
  if (!outer || outer.tag !== 0x30 || outer.end !== der.length) return false;
  const identifier = derElement(der, outer.start);
  if (!identifier || identifier.tag !== 0x30) return false;
  const oid = derElement(der, identifier.start);
  if (!oid || oid.tag !== 0x06 || !sameBytes(der.subarray(oid.start, oid.end), SPKI_OIDS[algorithm].oid)) return false;
  const curve = SPKI_OIDS[algorithm].curve;
  if (!curve) return true;
  const param = derElement(der, oid.end);
  return param !== undefined && param.tag === 0x06 && sameBytes(der.subarray(param.start, param.end), curve);
}

/** The stored text as a verifying key; undefined when it is not a key of this algorithm (or of another curve). */
export async function importPublicKey(algorithm: PublicKeyAlgorithm, stored: string): Promise<CryptoKey | undefined> {
  if (typeof stored !== 'string' || !isPublicKeyAlgorithm(algorithm)) return undefined;
  const key = keyBytes(algorithm, stored);
  if (!key || (key.format === 'spki' && !spkiNames(algorithm, key.bytes))) return undefined;
  try {
    return await crypto.subtle.importKey(key.format, key.bytes, IMPORT[algorithm], false, ['verify']);
  } catch {
    return undefined;
  }
}

/** Whether `signature` is a valid signature of `data`; ECDSA signatures may be DER (as SendGrid sends them) or r‖s. */
export async function verifyWithPublicKey(algorithm: PublicKeyAlgorithm, key: CryptoKey, signature: Uint8Array, data: Uint8Array): Promise<boolean> {
  const bytes = algorithm === 'ecdsa-p256-sha256' && signature.length !== 64 ? derToRaw(signature, 32) : signature;
  if (!bytes) return false;
  try {
    return await crypto.subtle.verify(VERIFY[algorithm], key, bytes, data);
  } catch {
    return false;
  }
}

/** An ASN.1 DER ECDSA signature SEQUENCE { INTEGER r, INTEGER s } as r‖s of `size` bytes each. */
export function derToRaw(der: Uint8Array, size: number): Uint8Array | undefined {
  let at = 0;
  const length = (): number | undefined => {
    const first = der[at++];
    if (first === undefined) return undefined;
    if (first < 0x80) return first;
    if (first !== 0x81) return undefined;
    return der[at++];
  };
  if (der[at++] !== 0x30) return undefined;
  const total = length();
  if (total === undefined || at + total !== der.length) return undefined;
  const out = new Uint8Array(size * 2);
  for (let i = 0; i < 2; i++) {
    if (der[at++] !== 0x02) return undefined;
    const n = length();
    if (n === undefined || n === 0 || at + n > der.length) return undefined;
    let int = der.subarray(at, at + n);
    at += n;
    while (int.length > size && int[0] === 0) int = int.subarray(1);
    if (int.length > size) return undefined;
    out.set(int, size * (i + 1) - int.length);
  }
  return at === der.length ? out : undefined;
}
