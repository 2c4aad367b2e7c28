// fault-proxy: an HTTPS proxy in front of a real kube-apiserver that injects the faults a CI run
// meets, per request pattern and schedule. Clients (kubeupd, kubectl) talk TLS to it with the
// certificate it makes at start (its CA written to DIR/ca.crt); it forwards every request, the
// client's own Authorization header included, to the upstream over TLS, unless a rule says
// otherwise. Go standard library only.
//
//	fault-proxy -listen 127.0.0.1:0 -upstream https://127.0.0.1:26443 -upstream-ca FILE -dir DIR -rules FILE
//	fault-proxy -webhook -listen 127.0.0.1:0 -dir DIR -rules FILE
//
// Prints the address it listens on, then serves until killed. Every request is logged to
// DIR/requests.log as one line: `METHOD PATH-WITH-QUERY OUTCOME` (the upstream's status, or the
// fault injected); every TLS handshake it fails as `TLS - tls-fail`.
//
// The rules file is a JSON list; each request is matched against the rules in order, every
// matching rule counts it, and the first one due applies:
//
//	{"method": "POST|PATCH", "path": "/configmaps", "fault": "status", "status": 429, "retryAfter": "1",
//	 "skip": 0, "first": 0, "every": 0, "within": ""}
//
// method and path are regular expressions (path against the path and query; method anchored).
// The schedule: the first `skip` matching requests pass; after them the fault applies to every
// `every`th (0 or 1: each), to the first `first` such (0: no limit), and only `within` a duration
// of the first matching request (empty: always). Faults:
//
//	status      answer `status` (a Kubernetes Status body) without forwarding; `retryAfter` sets Retry-After
//	reset       read the request, then reset the connection: it never reaches the server
//	reset-after forward the request, read the whole answer, then reset the connection: the write happened
//	stall       forward, then hold the answer `stall` (a duration) before sending it
//	watch-cut   forward a watch, pass `cutAfter` (a duration) of its events on, then cut the stream
//	tls-fail    (method "TLS", no path) fail the TLS handshake of matching connections
//	deny        (-webhook) refuse the object: an AdmissionReview with allowed false
//
// With -webhook, it is not a proxy but a validating admission webhook the apiserver calls
// (clientConfig.url https://ADDR/validate, caBundle DIR/ca.crt): it allows every object unless a
// rule says otherwise, and its rules match the path `/validate/NAMESPACE/NAME OPERATION` (e.g.
// `/validate/ns/u-a CREATE`); `reset` and `status` make the call fail, `stall` outlasts the
// webhook's timeout, `deny` refuses. `within` makes a webhook that is down for a while.
package main

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

type rule struct {
	Method     string `json:"method"`
	Path       string `json:"path"`
	Fault      string `json:"fault"`
	Status     int    `json:"status"`
	RetryAfter string `json:"retryAfter"`
	Skip       int    `json:"skip"`
	First      int    `json:"first"`
	Every      int    `json:"every"`
	Within     string `json:"within"`
	Stall      string `json:"stall"`
	CutAfter   string `json:"cutAfter"`

	method, path  *regexp.Regexp
	within, stall time.Duration
	cutAfter      time.Duration
	seen, applied int
	firstMatch    time.Time
}

type proxy struct {
	mu       sync.Mutex
	rules    []*rule
	log      *os.File
	upstream string
	client   *http.Client
}

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	upstream := flag.String("upstream", "", "the apiserver's URL")
	upstreamCA := flag.String("upstream-ca", "", "PEM file of the CA the apiserver's certificate is signed by")
	dir := flag.String("dir", "", "directory for ca.crt and requests.log")
	rulesFile := flag.String("rules", "", "JSON file of rules (none: forward everything)")
	webhook := flag.Bool("webhook", false, "be a validating admission webhook instead of a proxy")
	flag.Parse()
	if (*upstream == "" && !*webhook) || *dir == "" {
		fail(2, "usage: fault-proxy -upstream URL -upstream-ca FILE -dir DIR [-rules FILE] [-listen ADDR]\n"+
			"       fault-proxy -webhook -dir DIR [-rules FILE] [-listen ADDR]")
	}
	p := &proxy{upstream: strings.TrimRight(*upstream, "/")}
	if *rulesFile != "" {
		data, err := os.ReadFile(*rulesFile)
		check(err)
		check(json.Unmarshal(data, &p.rules))
		for i, r := range p.rules {
			r.method, err = regexp.Compile("^(" + r.Method + ")$")
			check(err)
			r.path, err = regexp.Compile(r.Path)
			check(err)
			for _, d := range []struct {
				text string
				into *time.Duration
			}{{r.Within, &r.within}, {r.Stall, &r.stall}, {r.CutAfter, &r.cutAfter}} {
				if d.text != "" {
					*d.into, err = time.ParseDuration(d.text)
					check(err)
				}
			}
			switch r.Fault {
			case "status", "reset", "reset-after", "stall", "watch-cut", "tls-fail", "deny":
			default:
				fail(2, fmt.Sprintf("rule %d: unknown fault %q", i+1, r.Fault))
			}
		}
	}
	roots := x509.NewCertPool()
	if *upstreamCA != "" {
		pemData, err := os.ReadFile(*upstreamCA)
		check(err)
		roots.AppendCertsFromPEM(pemData)
	}
	p.client = &http.Client{
		Transport: &http.Transport{
			TLSClientConfig:     &tls.Config{RootCAs: roots},
			DisableCompression:  true, // the client's Accept-Encoding passes through, and so does the answer
			MaxIdleConnsPerHost: 64,
			ForceAttemptHTTP2:   false,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	var err error
	p.log, err = os.OpenFile(filepath.Join(*dir, "requests.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	check(err)
	cert := selfSigned(*dir)
	listener, err := net.Listen("tcp", *listen)
	check(err)
	tlsConfig := &tls.Config{
		Certificates: []tls.Certificate{cert},
		NextProtos:   []string{"http/1.1"},
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			if p.due("TLS", "") != nil {
				p.record("TLS - tls-fail")
				return nil, errors.New("injected TLS handshake failure")
			}
			return nil, nil
		},
	}
	var handler http.Handler = p
	if *webhook {
		handler = http.HandlerFunc(p.admit)
	}
	server := &http.Server{
		Handler:      handler,
		TLSNextProto: map[string]func(*http.Server, *tls.Conn, http.Handler){}, // HTTP/1.1 only: connections can be hijacked
		ErrorLog:     nil,
	}
	fmt.Println(listener.Addr().String())
	os.Stdout.Close()
	check(server.Serve(tls.NewListener(listener, tlsConfig)))
}

// due counts a request against every matching rule and returns the first rule whose fault applies.
func (p *proxy) due(method, path string) *rule {
	p.mu.Lock()
	defer p.mu.Unlock()
	var found *rule
	now := time.Now()
	for _, r := range p.rules {
		if !r.method.MatchString(method) || (method != "TLS" && !r.path.MatchString(path)) {
			continue
		}
		r.seen++
		if r.firstMatch.IsZero() {
			r.firstMatch = now
		}
		if found != nil || r.seen <= r.Skip {
			continue
		}
		n := r.seen - r.Skip
		every := max(r.Every, 1)
		if n%every != 0 || (r.First > 0 && r.applied >= r.First) || (r.within > 0 && now.Sub(r.firstMatch) > r.within) {
			continue
		}
		r.applied++
		found = r
	}
	return found
}

func (p *proxy) record(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.log, line)
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	target := req.URL.RequestURI()
	body, err := io.ReadAll(req.Body)
	if err != nil {
		p.record(fmt.Sprintf("%s %s client-error", req.Method, target))
		return
	}
	r := p.due(req.Method, target)
	fault := "forward"
	if r != nil {
		fault = r.Fault
	}
	switch fault {
	case "status":
		p.record(fmt.Sprintf("%s %s %d injected", req.Method, target, r.Status))
		if r.RetryAfter != "" {
			w.Header().Set("Retry-After", r.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(r.Status)
		reason := strings.ReplaceAll(http.StatusText(r.Status), " ", "")
		status := map[string]any{
			"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{}, "status": "Failure",
			"message": fmt.Sprintf("injected %d %s", r.Status, reason), "reason": reason, "code": r.Status,
		}
		json.NewEncoder(w).Encode(status)
		return
	case "reset":
		p.record(fmt.Sprintf("%s %s reset", req.Method, target))
		reset(w)
		return
	}
	answer, err := p.forward(req, target, body)
	if err != nil {
		p.record(fmt.Sprintf("%s %s upstream-error %v", req.Method, target, err))
		reset(w)
		return
	}
	defer answer.Body.Close()
	switch fault {
	case "reset-after":
		io.Copy(io.Discard, answer.Body)
		p.record(fmt.Sprintf("%s %s %d reset-after", req.Method, target, answer.StatusCode))
		reset(w)
		return
	case "stall":
		p.record(fmt.Sprintf("%s %s %d stall", req.Method, target, answer.StatusCode))
		time.Sleep(r.stall)
	case "watch-cut":
		p.record(fmt.Sprintf("%s %s %d watch-cut", req.Method, target, answer.StatusCode))
		copyHead(w, answer)
		deadline := time.Now().Add(r.cutAfter)
		done := make(chan struct{})
		go func() {
			relay(w, answer.Body)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(time.Until(deadline)):
			answer.Body.Close()
			<-done
		}
		panic(http.ErrAbortHandler) // the chunked stream ends without its last chunk: cut
	default:
		p.record(fmt.Sprintf("%s %s %d", req.Method, target, answer.StatusCode))
	}
	copyHead(w, answer)
	relay(w, answer.Body)
}

// admit answers the apiserver's AdmissionReview: allowed, unless a rule says otherwise.
func (p *proxy) admit(w http.ResponseWriter, req *http.Request) {
	var review struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Request    struct {
			UID       string `json:"uid"`
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
			Operation string `json:"operation"`
		} `json:"request"`
	}
	if err := json.NewDecoder(req.Body).Decode(&review); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	target := fmt.Sprintf("%s/%s/%s %s", req.URL.Path, review.Request.Namespace, review.Request.Name, review.Request.Operation)
	r := p.due(req.Method, target)
	allowed, message := true, ""
	if r != nil {
		p.record(fmt.Sprintf("%s %s %s", req.Method, target, r.Fault))
		switch r.Fault {
		case "status":
			http.Error(w, "injected", r.Status)
			return
		case "reset":
			reset(w)
			return
		case "stall":
			time.Sleep(r.stall)
		case "deny":
			allowed, message = false, "injected: the webhook refuses "+review.Request.Name
		}
	} else {
		p.record(fmt.Sprintf("%s %s allowed", req.Method, target))
	}
	response := map[string]any{"uid": review.Request.UID, "allowed": allowed}
	if !allowed {
		response["status"] = map[string]any{"code": 403, "message": message}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"apiVersion": review.APIVersion, "kind": review.Kind, "response": response})
}

func (p *proxy) forward(req *http.Request, target string, body []byte) (*http.Response, error) {
	out, err := http.NewRequest(req.Method, p.upstream+target, strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	for name, values := range req.Header {
		if name == "Connection" || name == "Keep-Alive" {
			continue
		}
		out.Header[name] = values
	}
	if len(body) == 0 {
		out.Body = http.NoBody
	}
	return p.client.Do(out)
}

func copyHead(w http.ResponseWriter, answer *http.Response) {
	for name, values := range answer.Header {
		if name == "Content-Length" {
			continue
		}
		w.Header()[name] = values
	}
	w.WriteHeader(answer.StatusCode)
}

// relay copies an answer's body, flushing every read so that watch events pass as they come.
func relay(w http.ResponseWriter, body io.Reader) {
	flusher, _ := w.(http.Flusher)
	reader := bufio.NewReaderSize(body, 32*1024)
	buf := make([]byte, 32*1024)
	for {
		n, err := reader.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}

// reset closes the client's connection with a TCP reset, nothing answered.
func reset(w http.ResponseWriter) {
	hijacker, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hijacker.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tlsConn, ok := conn.(*tls.Conn); ok {
		if tcp, ok := tlsConn.NetConn().(*net.TCPConn); ok {
			tcp.SetLinger(0)
			tcp.Close()
			return
		}
	}
	conn.Close()
}

// selfSigned makes a CA and a certificate for 127.0.0.1 and localhost signed by it, and writes
// the CA's certificate to DIR/ca.crt (rustls does not take a CA's certificate as a server's).
func selfSigned(dir string) tls.Certificate {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	check(err)
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "fault-proxy CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	check(err)
	ca, err = x509.ParseCertificate(caDER)
	check(err)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	check(err)
	leaf := &x509.Certificate{
		SerialNumber:          big.NewInt(2),
		Subject:               pkix.Name{CommonName: "fault-proxy"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	check(err)
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	check(os.WriteFile(filepath.Join(dir, "ca.crt"), caPEM, 0o600))
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func check(err error) {
	if err != nil {
		fail(1, err.Error())
	}
}

func fail(code int, message string) {
	fmt.Fprintln(os.Stderr, "fault-proxy:", message)
	os.Exit(code)
}
