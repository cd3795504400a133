package redact

import (
	"crypto/sha256"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWalletKeysAgreeWithPython: Bitcoin private keys in wallet import
// format (uncompressed, 5...; compressed, K... and L...) and BIP 32
// extended private keys (xprv, tprv), base58check-encoded as the format
// says, alone, in a repr, a dict, a log line and a JSON, are masked; a
// WIF's letters whose checksum fails, and extended public keys (xpub), are
// left.
func TestWalletKeysAgreeWithPython(t *testing.T) {
	againstPython(t, walletDocs, walletCheck, 1500, func(s string) string { out, _ := maskTextTo(s, nil, nil); return out })
}

const walletDocs = `
import hashlib, json, random, sys
rng = random.Random(int(sys.argv[1]))
A = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
def b58(b):
    n = int.from_bytes(b, "big")
    out = ""
    while n:
        n, r = divmod(n, 58)
        out = A[r] + out
    return "1" * (len(b) - len(b.lstrip(b"\0"))) + out
def check(payload):
    return b58(payload + hashlib.sha256(hashlib.sha256(payload).digest()).digest()[:4])
def key():
    kind = rng.randrange(4)
    k = bytes(rng.getrandbits(8) for _ in range(32))
    if kind == 0:
        return check(b"\x80" + k), "wif"
    if kind == 1:
        return check(b"\x80" + k + b"\x01"), "wif"
    version = rng.choice([bytes.fromhex("0488ADE4"), bytes.fromhex("04358394")])  # xprv, tprv
    rest = bytes(rng.getrandbits(8) for _ in range(41)) + b"\x00" + k
    if kind == 2:
        return check(version + rest), "xprv"
    return check(bytes.fromhex("0488B21E") + rest), ""  # xpub: public
n = int(sys.argv[2])
for i in range(n):
    v, secret = key()
    if secret == "wif" and rng.random() < 0.2:  # the checksum broken: no key (an xprv is told by its prefix)
        i = rng.randrange(len(v) - 1) + 1
        v = v[:i] + rng.choice([c for c in A if c != v[i]]) + v[i + 1:]
        secret = ""
    form = rng.randrange(5)
    text = [v, repr(v), repr({"wif": 1, "k": v}), "INFO imported " + v + " into the wallet", json.dumps([v])][form]
    print(json.dumps([text, json.dumps([v, secret])]))
`

const walletCheck = `
import json, sys
for line in sys.stdin:
    text, masked, meta = json.loads(line)
    v, secret = json.loads(meta)
    why = ""
    if secret and any(v[i:i + 8] in masked for i in range(0, len(v) - 7, 4)):
        why = "a key's characters left"
    if not secret and masked != text:
        why = "no key, masked: %s" % masked
    print(json.dumps(why))
`

func TestWIF(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ", true},
		{"key: KwdMAjGmerYanjeui5SHS7JkmpZvVipYvB2LJGU1ZxJwYvP98617.", true},
		{"5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTK", false}, // its checksum fails
		{"QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG", false},      // an IPFS id
		{strings.Repeat("5", 51), false},
	} {
		_, _, ok := wif(c.s, 0)
		if ok != c.want {
			t.Errorf("wif(%q) = %v", c.s, ok)
		}
	}
}

// TestSHA256AgreesWithCrypto: sha256Sum is crypto/sha256's Sum256 on every
// length to 300 bytes (each padding case: 55, 56, 63, 64 ...) and on
// random inputs.
func TestSHA256AgreesWithCrypto(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		for range 3 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(rng.UintN(256))
			}
			if got, want := sha256Sum(b), sha256.Sum256(b); got != want {
				t.Fatalf("%d bytes %x: %x, want %x", n, b, got, want)
			}
		}
	}
}
