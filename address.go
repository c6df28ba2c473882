package sdbus

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// parseAddress turns one D-Bus address into a network and target for
// net.Dialer.
func parseAddress(a string) (network, target string, err error) {
	transport, params, ok := strings.Cut(a, ":")
	if !ok {
		return "", "", fmt.Errorf("address %q has no transport", a)
	}
	kv := map[string]string{}
	for _, p := range strings.Split(params, ",") {
		if p == "" {
			continue
		}
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return "", "", fmt.Errorf("address %q: malformed %q", a, p)
		}
		uv, err := unescapeAddressValue(v)
		if err != nil {
			return "", "", fmt.Errorf("address %q: %v", a, err)
		}
		kv[k] = uv
	}
	switch transport {
	case "unix":
		switch {
		case kv["path"] != "" && kv["abstract"] == "":
			return "unix", kv["path"], nil
		case kv["abstract"] != "" && kv["path"] == "":
			return "unix", "@" + kv["abstract"], nil
		}
		return "", "", fmt.Errorf("address %q: need exactly one of path= and abstract=", a)
	case "tcp":
		if kv["host"] == "" || kv["port"] == "" {
			return "", "", fmt.Errorf("address %q: need host= and port=", a)
		}
		network := "tcp"
		switch kv["family"] {
		case "ipv4":
			network = "tcp4"
		case "ipv6":
			network = "tcp6"
		}
		return network, net.JoinHostPort(kv["host"], kv["port"]), nil
	}
	return "", "", fmt.Errorf("address %q: unsupported transport %q", a, transport)
}

func unescapeAddressValue(v string) (string, error) {
	if !strings.Contains(v, "%") {
		return v, nil
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '%' {
			b.WriteByte(v[i])
			continue
		}
		if i+2 >= len(v) {
			return "", fmt.Errorf("truncated escape in %q", v)
		}
		n, err := strconv.ParseUint(v[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", v)
		}
		b.WriteByte(byte(n))
		i += 2
	}
	return b.String(), nil
}

func escapeAddressValue(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("-_/.\\*", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}
