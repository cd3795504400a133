# A policy that needs a builtin the host does not provide (http.send): the
# host refuses it at load, naming the builtin.
package guard

decision := "deny" if {
	resp := http.send({"method": "GET", "url": "http://127.0.0.1:1/"})
	resp.status_code != 200
}
