package redact

import (
	"encoding/binary"
	"math/bits"
	"strings"
)

// A Bitcoin private key in wallet import format (WIF) is the key's 32
// bytes after a 0x80 (and a 0x01 when its public key is compressed), with
// a checksum, in base58: 51 characters beginning with 5, or 52 with K or
// L. It spends the wallet's coins, and a program that holds one (a
// wallet's script, bit, python-bitcoinlib) showed it in clear (found
// 2026-12-08): it has no prefix a token reading knows. It is told by its
// checksum (the first 4 bytes of the payload's double SHA-256), so no
// other word of its letters is taken for one.

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// wif finds a WIF private key in s from from on: a word of 51 or 52
// base58 characters whose checksum holds.
func wif(s string, from int) (start, end int, ok bool) {
	if len(s)-from < 51 { // most values: too short to hold one
		return 0, 0, false
	}
	for i := from; i < len(s); i++ {
		k := strings.IndexAny(s[i:], "5KL")
		if k < 0 {
			break
		}
		i += k
		c := s[i]
		if i > 0 && isB64URL(s[i-1]) {
			continue
		}
		n := run(s, i, isBase58)
		if (n == 51 && c == '5' || n == 52 && c != '5') && (i+n == len(s) || !isB64URL(s[i+n])) && wifChecksum(s[i:i+n]) {
			return i, i + n, true
		}
		i += n
	}
	return 0, 0, false
}

func isBase58(c byte) bool { return strings.IndexByte(base58Alphabet, c) >= 0 }

// wifChecksum: w, in base58, decodes to 0x80, a key (and 0x01), and the
// payload's checksum.
func wifChecksum(w string) bool {
	b := base58Decode(w)
	if len(b) != 37 && len(b) != 38 || b[0] != 0x80 || len(b) == 38 && b[33] != 0x01 {
		return false
	}
	sum := sha256Sum(b[:len(b)-4])
	sum = sha256Sum(sum[:])
	return string(sum[:4]) == string(b[len(b)-4:])
}

// base58Decode is w's bytes, w in base58 (no leading '1's: a WIF key
// begins with 5, K or L), big-endian: each character multiplies what is
// decoded so far by 58 and adds its value.
func base58Decode(w string) []byte {
	var b []byte
	for i := 0; i < len(w); i++ {
		carry := strings.IndexByte(base58Alphabet, w[i])
		for k := len(b) - 1; k >= 0; k-- {
			carry += int(b[k]) * 58
			b[k] = byte(carry)
			carry >>= 8
		}
		for ; carry > 0; carry >>= 8 {
			b = append([]byte{byte(carry)}, b...)
		}
	}
	return b
}

// sha256Sum is SHA-256 (FIPS 180-4) of b, for a checksum: crypto/sha256
// brought the FIPS module's tree (AES, a DRBG, SHA-3) into the built-ins,
// 168 KB of their WebAssembly, for 8 bytes a key. TestSHA256AgreesWithCrypto
// holds it to crypto/sha256.
func sha256Sum(b []byte) [32]byte {
	h := [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}
	msg := append(append([]byte(nil), b...), 0x80)
	for len(msg)%64 != 56 {
		msg = append(msg, 0)
	}
	msg = binary.BigEndian.AppendUint64(msg, uint64(len(b))*8)
	var w [64]uint32
	for block := 0; block < len(msg); block += 64 {
		for i := 0; i < 16; i++ {
			w[i] = binary.BigEndian.Uint32(msg[block+4*i:])
		}
		for i := 16; i < 64; i++ {
			s0 := bits.RotateLeft32(w[i-15], -7) ^ bits.RotateLeft32(w[i-15], -18) ^ w[i-15]>>3
			s1 := bits.RotateLeft32(w[i-2], -17) ^ bits.RotateLeft32(w[i-2], -19) ^ w[i-2]>>10
			w[i] = w[i-16] + s0 + w[i-7] + s1
		}
		a, bb, c, d, e, f, g, hh := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
		for i := 0; i < 64; i++ {
			s1 := bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)
			ch := e&f ^ ^e&g
			t1 := hh + s1 + ch + sha256K[i] + w[i]
			s0 := bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)
			maj := a&bb ^ a&c ^ bb&c
			t2 := s0 + maj
			hh, g, f, e, d, c, bb, a = g, f, e, d+t1, c, bb, a, t1+t2
		}
		h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7] = h[0]+a, h[1]+bb, h[2]+c, h[3]+d, h[4]+e, h[5]+f, h[6]+g, h[7]+hh
	}
	var out [32]byte
	for i, v := range h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

var sha256K = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}
