package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/debugpy-guard/debugpy-guard/plugins/sdk"
	"github.com/debugpy-guard/debugpy-guard/policies/internal/policytest"
)

// TestKubernetesSecretsAgreeWithPython: Kubernetes Secrets as a program
// shows them (the kubernetes client's V1Secret's repr, its manifest as
// yaml.safe_dump and json.dumps write it, a list of them), with data and
// stringData under keys of any name, values of any characters and in
// base64: no value of its data is left, and its name is; a ConfigMap's
// data is left.
func TestKubernetesSecretsAgreeWithPython(t *testing.T) {
	againstPython(t, kubernetesDocs, kubernetesCheck, 600, func(s string) string { out, _ := maskTextTo(s, nil, nil); return out })
}

const kubernetesDocs = `
import base64, json, random, sys, yaml
from kubernetes import client
rng = random.Random(int(sys.argv[1]))
def text():
    chars = "abcXYZ0189 '\"\\\\%,()=:#é€\n"
    return "v" + "".join(rng.choice(chars) for _ in range(rng.randint(6, 16)))
KEYS = ["tls.key", "url", "config.json", "conn", "ca.crt", "region", ".dockerconfigjson", "user"]
n = int(sys.argv[2])
for i in range(n):
    kind = "Secret" if rng.random() < 0.85 else "ConfigMap"
    data, plain = {}, {}
    for k in rng.sample(KEYS, rng.randint(1, 4)):
        v = text()
        data[k] = base64.b64encode(v.encode()).decode() if kind == "Secret" and rng.random() < 0.7 else v
    string_data = {rng.choice(KEYS): text()} if kind == "Secret" and rng.random() < 0.4 else None
    name = "app-" + str(rng.randint(1, 999))
    if kind == "Secret":
        obj = client.V1Secret(api_version="v1", kind="Secret", metadata=client.V1ObjectMeta(name=name), data=data, string_data=string_data, type="Opaque")
    else:
        obj = client.V1ConfigMap(api_version="v1", kind="ConfigMap", metadata=client.V1ObjectMeta(name=name), data=data)
    manifest = client.ApiClient().sanitize_for_serialization(obj)
    form = rng.randrange(4)
    if form == 0:
        shown = repr(obj)
    elif form == 1:
        shown = yaml.safe_dump(manifest)
    elif form == 2:
        shown = json.dumps(manifest, indent=rng.choice([None, 2]))
    else:
        shown = repr(manifest)
    values = list(data.values()) + list((string_data or {}).values())
    print(json.dumps([shown, json.dumps([kind, values, name])]))
`

const kubernetesCheck = `
import ast, json, re, sys, yaml
M = "REDACTED_M"
for line in sys.stdin:
    shown, masked, meta = json.loads(line)
    kind, values, name = json.loads(meta)
    why = ""
    # a value masked bare (a None under data's name) reads as a string
    masked = re.sub(r"(?<=: )\[redacted\](?=[,}\n]|$)", "'" + M + "'", masked).replace("[redacted]", M)
    try:
        if shown.startswith("{'") or shown.startswith("{'api_version'"):
            got = ast.literal_eval(masked)
        elif shown.startswith("{"):
            got = json.loads(masked)
        else:
            got = yaml.safe_load(masked)
        data = {}
        for part in (got.get("data"), got.get("stringData"), got.get("string_data")):
            if isinstance(part, dict):
                data.update(part)
            elif part not in (None, M):
                why = "data is %r" % part
        if kind == "Secret":
            for k, v in data.items():
                if v is not None and (not isinstance(v, str) or v.replace(M, "").strip() != ""):  # a mask a line
                    why = "a secret's value left: %r" % v
        elif sorted(data.values()) != sorted(values):
            why = "a ConfigMap's data changed: %r" % data
        if got["metadata"]["name"] != name:
            why = why or "the name changed"
    except Exception as e:
        why = "does not parse: %r" % e
    print(json.dumps(why))
`

// A V1Secret listed: its data and string_data rows (and the attributes
// behind them) beside its kind 'Secret' are masked; a ConfigMap's are
// not.
func TestKubernetesSecretRowsMasked(t *testing.T) {
	const secret = "dGxzLWtleS1zM2NyZXQtdmFsdWU="
	listing := func(kind string, names ...string) string {
		rows := []map[string]any{{"name": "kind", "value": kind, "type": "str"}}
		for _, n := range names {
			rows = append(rows, map[string]any{"name": n, "value": "{'tls.key': '" + secret + "'}", "type": "dict"})
		}
		res, _ := json.Marshal(map[string]any{"variables_reference": 9, "variables": rows})
		return string(res)
	}
	sdk.HandlePrepared(Prepare)
	defer sdk.Handle(nil)
	for _, names := range [][]string{{"data"}, {"string_data", "_data", "_string_data"}} {
		out := shownResult(t, policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: listing("'Secret'", names...)})
		if strings.Contains(out, secret[:12]) || !strings.Contains(out, "'Secret'") {
			t.Errorf("%v: %s", names, out)
		}
	}
	out, _ := sdk.Evaluate(policytest.Case{Phase: "result", Tool: "debugpy_variables", Result: listing("'ConfigMap'", "data")}.Request())
	sdk.TakeSecrets()
	if !strings.Contains(string(out), "nothing to redact") {
		t.Errorf("a ConfigMap's data masked: %s", out)
	}
}
