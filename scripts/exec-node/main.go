// exec-node: the node agent's exec endpoint, as a kubelet serves it, for a Node of the test
// cluster (scripts/local-cluster.sh nodes registers it) whose pods run their commands on this
// machine. kwok, which plays the other nodes, reports a command's non-zero exit as an internal
// error without its code; this node answers as a kubelet over a container runtime does: the
// command's exit status as an exit error, which Kubernetes' own streaming server
// (k8s.io/cri-streaming, what the kubelet and the runtimes serve exec with) writes as the
// NonZeroExitCode Status, with the code, on the error channel.
//
//	exec-node -listen 127.0.0.1:10260 -dir DIR
//
// Serves HTTPS (a certificate made at start: the apiserver verifies a kubelet's certificate only
// with --kubelet-certificate-authority) on `/exec/NAMESPACE/POD[/UID]/CONTAINER?command=...`,
// until killed. Every pod's commands run in DIR; with a terminal asked for, stdout and stderr
// both go to the terminal's stream (no pseudo-terminal is made).
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"os/exec"
	"time"

	"k8s.io/cri-streaming/pkg/streaming/remotecommand"
	utilexec "k8s.io/utils/exec"
)

// The kubelet's defaults: --streaming-connection-idle-timeout, and the time a client has to open
// its streams.
const (
	idleTimeout           = 4 * time.Hour
	streamCreationTimeout = 30 * time.Second
)

// localRuntime runs a pod's commands as processes of this machine, in dir.
type localRuntime struct {
	dir string
}

func (r localRuntime) ExecInContainer(ctx context.Context, _ string, _ string, _ string, command []string,
	in io.Reader, out, errOut io.WriteCloser, tty bool, resize <-chan remotecommand.TerminalSize, _ time.Duration) error {
	if len(command) == 0 {
		return errors.New("no command")
	}
	if resize != nil {
		go func() {
			for range resize {
			}
		}()
	}
	process := exec.CommandContext(ctx, command[0], command[1:]...)
	process.Dir = r.dir
	if out != nil {
		process.Stdout = out
	}
	if tty {
		process.Stderr = out
	} else if errOut != nil {
		process.Stderr = errOut
	}
	// A pipe rather than the reader itself: the command's end must not wait for the client's stdin
	// to end.
	if in != nil {
		pipe, err := process.StdinPipe()
		if err != nil {
			return err
		}
		go func() {
			_, _ = io.Copy(pipe, in)
			_ = pipe.Close()
		}()
	}
	err := process.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.Exited() {
		code := exitErr.ExitCode()
		return utilexec.CodeExitError{Err: fmt.Errorf("command %q exited with code %d", command, code), Code: code}
	}
	return err
}

// certificate is a self-signed serving certificate for 127.0.0.1.
func certificate() (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	template := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "exec-node"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

func main() {
	listen := flag.String("listen", "127.0.0.1:10260", "address to serve HTTPS on")
	dir := flag.String("dir", ".", "the directory commands run in")
	flag.Parse()

	runtime := localRuntime{dir: *dir}
	serveExec := func(w http.ResponseWriter, req *http.Request) {
		options, err := remotecommand.NewOptions(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		pod := req.PathValue("pod") + "/" + req.PathValue("namespace")
		remotecommand.ServeExec(w, req, runtime, pod, req.PathValue("uid"), req.PathValue("container"),
			req.URL.Query()["command"], options, idleTimeout, streamCreationTimeout,
			remotecommand.SupportedStreamingProtocols)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/exec/{namespace}/{pod}/{container}", serveExec)
	mux.HandleFunc("/exec/{namespace}/{pod}/{uid}/{container}", serveExec)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })

	cert, err := certificate()
	if err != nil {
		log.Fatalf("exec-node: certificate: %v", err)
	}
	server := &http.Server{
		Addr:      *listen,
		Handler:   mux,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}},
	}
	log.Printf("exec-node: serving on https://%s", *listen)
	log.Fatal(server.ListenAndServeTLS("", ""))
}
