package redact

import "testing"

func TestZZProbe(t *testing.T) {
	for _, s := range []string{
		"user,User Password\nada,hunter2xyz\n",
		"user,Password (plain)\nada,hunter2xyz\n",
		"user,\"password\"\nada,hunter2xyz\n",
		"user|password\nada|hunter2xyz\n",
		"user:password\nada:hunter2xyz\n",
		"user password\nada hunter2xyz\n",
		"USER;PASSWORD\nada;hunter2xyz\n",
		"# user,password\nada,hunter2xyz\n",
		"user,pass\u200bword\nada,hunter2xyz\n",
		"user,ｐａｓｓｗｏｒｄ\nada,hunter2xyz\n",
		"\ufeffuser,password\nada,hunter2xyz\n",
		"user,password\r\nada,hunter2xyz\r\n",
		"user,password\rada,hunter2xyz\r",
	} {
		out, _ := maskText(s, nil)
		t.Logf("%q\n  -> %q", s, out)
	}
}
