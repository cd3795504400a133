package redact

import (
	"sort"
	"strings"
)

// A wallet's seed phrase (BIP 39) is the whole wallet: 12 to 24 words of
// its list, which every wallet library (python-mnemonic, bip_utils,
// hdwallet, web3's account features) holds and prints as one string,
// words apart by a space, or as a list of its words. Held under a name of
// no secret (mnemonic, words, phrase: "mnemonic" and "seed" alone name
// other things), it was shown in clear (found 2026-12-08). So a run of at
// least minSeedWords words of the list, in lower case, each apart from
// the next by a space or as a list's strings ('abandon', 'ability'), is
// masked, whatever its name. No prose runs that long on the list's words
// alone: it has no "the", "a", "of", "to", "is" or "and".

// minSeedWords is the fewest words of a seed phrase (BIP 39's 128 bits of
// entropy).
const minSeedWords = 12

// isSeedWord: w is a word of BIP 39's English list.
func isSeedWord(w string) bool {
	if len(w) < 3 || len(w) > 8 {
		return false
	}
	i := sort.SearchStrings(bip39Words[:], w)
	return i < len(bip39Words) && bip39Words[i] == w
}

// maskSeedPhrases masks every run of minSeedWords or more words of BIP 39's
// list in s, and hands each to found as the program holds it (its words
// joined by a space) and as shown. A text is read in two passes: runs of
// words shaped as the list's are (3 to 8 letters in lower case, apart as a
// phrase's), and only in a run long enough, each word looked up (prose's
// words of two letters, capitals and commas end most runs first).
func maskSeedPhrases(s string, found func(string)) (string, bool) {
	if len(s) < minSeedWords*4-1 { // 12 words of 3 letters or more, apart: most values are shorter
		return s, false
	}
	h := hidden{s: s, found: found}
	var shaped [][2]int // the run of words shaped as the list's, where each is
	check := func() {
		for k := 0; k < len(shaped); {
			m := k // the words of the list from k
			for m < len(shaped) && isSeedWord(s[shaped[m][0]:shaped[m][1]]) {
				m++
			}
			if m-k >= minSeedWords {
				from, to := shaped[k][0], shaped[m-1][1]
				h.hide(from, to)
				if phrase := seedPhrase(s, shaped[k:m]); found != nil && phrase != s[from:to] {
					found(phrase)
				}
			}
			k = m + 1
		}
		shaped = shaped[:0]
	}
	for i := 0; i < len(s); {
		if !isLower(s[i]) {
			i++
			continue
		}
		escaped := i > 0 && s[i-1] == '\\' && (s[i] == 'n' || s[i] == 't' || s[i] == 'r')
		if escaped {
			i++ // an escape's letter: a repr's '...\nglass collect ...'
			if i == len(s) || !isLower(s[i]) {
				continue
			}
		}
		j := i + run(s, i, isLower)
		if n := j - i; n < 3 || n > 8 || !escaped && i > 0 && isWordByte(s[i-1]) || j < len(s) && isWordByte(s[j]) {
			if len(shaped) >= minSeedWords {
				check()
			}
			shaped = shaped[:0]
			i = j
			continue
		}
		if len(shaped) > 0 && !seedSeparator(s[shaped[len(shaped)-1][1]:i]) {
			if len(shaped) >= minSeedWords {
				check()
			}
			shaped = shaped[:0]
		}
		shaped = append(shaped, [2]int{i, j})
		i = j
	}
	if len(shaped) >= minSeedWords {
		check()
	}
	return h.masked()
}

// seedPhrase is the words at spans of s joined by a space: a phrase as
// the program holds it.
func seedPhrase(s string, spans [][2]int) string {
	var b strings.Builder
	for k, sp := range spans {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s[sp[0]:sp[1]])
	}
	return b.String()
}

// seedSeparator: sep stands between two words of a phrase: a space, a
// list's or tuple's strings apart ('abandon', 'ability'), a line end (a
// word a line, printed or escaped in a repr).
func seedSeparator(sep string) bool {
	return sep == " " || sep == "', '" || sep == `", "` || sep == "\n" || sep == `\n`
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
