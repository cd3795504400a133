package redact

import (
	"crypto/sha256"
	"math/big"
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
	n := new(big.Int)
	radix := big.NewInt(58)
	for i := 0; i < len(w); i++ {
		n.Mul(n, radix)
		n.Add(n, big.NewInt(int64(strings.IndexByte(base58Alphabet, w[i]))))
	}
	b := n.Bytes()
	if len(b) != 37 && len(b) != 38 || b[0] != 0x80 || len(b) == 38 && b[33] != 0x01 {
		return false
	}
	sum := sha256.Sum256(b[:len(b)-4])
	sum = sha256.Sum256(sum[:])
	return string(sum[:4]) == string(b[len(b)-4:])
}
