package redact

import (
	"slices"
	"strings"
	"testing"
)

func TestMaskSeedPhrases(t *testing.T) {
	const p12 = "glass collect suit access child oak spatial nerve loud oxygen program few"
	p24 := p12 + " abandon ability able about above absent absorb abstract absurd abuse access accident"
	list := "['" + strings.Join(strings.Fields(p12), "', '") + "']"
	for _, c := range []struct{ in, want string }{
		{p12, mask},
		{"'" + p12 + "'", "'" + mask + "'"},
		{"mnemonic: str = '" + p24 + "'", "mnemonic: str = '" + mask + "'"},
		{list, "['" + mask + "']"},
		{`{"words": ["` + strings.Join(strings.Fields(p12), `", "`) + `"]}`, `{"words": ["` + mask + `"]}`},
		{"Your recovery phrase: " + p12 + "\nKeep it safe.", "Your recovery phrase: " + mask + "\nKeep it safe."},
		// left: fewer than 12 words, a word not on the list between, capitals, prose
		{strings.Join(strings.Fields(p12)[:11], " "), strings.Join(strings.Fields(p12)[:11], " ")},
		{strings.Replace(p12, "oak", "the", 1), strings.Replace(p12, "oak", "the", 1)},
		{strings.ToUpper(p12), strings.ToUpper(p12)},
		{"the client sent an access token to the server, which checked it against the cache and found no entry for it",
			"the client sent an access token to the server, which checked it against the cache and found no entry for it"},
		{"glass,collect,suit,access,child,oak,spatial,nerve,loud,oxygen,program,few", "glass,collect,suit,access,child,oak,spatial,nerve,loud,oxygen,program,few"},
	} {
		var found []string
		got, changed := maskSeedPhrases(c.in, func(v string) { found = append(found, v) })
		if got != c.want || changed != (c.want != c.in) {
			t.Errorf("%q:\n got %q\nwant %q", c.in, got, c.want)
		}
		if changed && !slices.ContainsFunc(found, func(f string) bool { return f == p12 || f == p24 }) {
			t.Errorf("%q: found %q, not the phrase as the program holds it", c.in, found)
		}
	}
}

// TestSeedPhrasesAgreeWithMnemonic: seed phrases of 12 to 24 words that
// python-mnemonic generates, as a program shows them (printed, a repr, a
// list of its words, JSON, a dict under a name of no secret, a log line),
// are masked: no 3 of their words in a row are left; and English prose
// and lists of other words are left as they were.
func TestSeedPhrasesAgreeWithMnemonic(t *testing.T) {
	againstPython(t, seedDocs, seedCheck, 1000, func(s string) string { out, _ := maskSeedPhrases(s, nil); return out })
}

const seedDocs = `
import json, random, sys
from mnemonic import Mnemonic
rng = random.Random(int(sys.argv[1]))
m = Mnemonic("english")
PROSE = ["The quick brown fox jumps over the lazy dog, and then it runs away into the dark forest.",
         "access denied: the account was locked after three failed attempts at login from a new address",
         "above all, keep the system simple; add a cache only when the profile says the disk is slow",
         "about the same time every day the job runs, writes its report and sends a summary to the team"]
n = int(sys.argv[2])
for i in range(n):
    if rng.random() < 0.15:
        words = rng.sample(m.wordlist, rng.randint(12, 30))
        text = rng.choice(PROSE) + " " + ", ".join(words)  # commas: no phrase
        print(json.dumps([text, json.dumps([])]))
        continue
    phrase = m.generate(rng.choice([128, 160, 192, 224, 256]))
    words = phrase.split()
    form = rng.randrange(7)
    if form == 0:
        text = phrase
    elif form == 1:
        text = "mnemonic: str = " + repr(phrase)
    elif form == 2:
        text = repr(words)
    elif form == 3:
        text = json.dumps({"phrase": phrase, "index": 0})
    elif form == 4:
        text = repr({"mnemonic": phrase, "passphrase_set": False})
    elif form == 5:
        text = "INFO wallet created; recovery phrase: %s (write it down)" % phrase
    else:
        text = rng.choice(PROSE) + "\\n" + phrase + "\\n" + rng.choice(PROSE)
    print(json.dumps([text, json.dumps(words)]))
`

const seedCheck = `
import json, sys
for line in sys.stdin:
    text, masked, words = json.loads(line)
    words = json.loads(words)
    why = ""
    if not words and masked != text:
        why = "prose masked"
    for i in range(len(words) - 2):
        if " ".join(words[i:i + 3]) in masked or "', '".join(words[i:i + 3]) in masked or '", "'.join(words[i:i + 3]) in masked:
            why = "words left: %s" % " ".join(words[i:i + 3])
    print(json.dumps(why))
`
