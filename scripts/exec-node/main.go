// exec-node: the node agent's streaming endpoints (exec, attach, port-forward), as a kubelet
// serves them, for a Node of the test cluster (scripts/local-cluster.sh nodes registers it) whose
// pods run on this machine. kwok, which plays the other nodes, reports a command's non-zero exit
// as an internal error without its code and carries no bytes through attach or port-forward;
// this node answers as a kubelet over a container runtime does, with Kubernetes' own streaming
// server (k8s.io/cri-streaming, what the kubelet and the runtimes serve these with). Exec runs the
// command here; its exit status comes back as an exit error, which the server writes as the
// NonZeroExitCode Status, with the code, on the error channel. Port-forward carries a pod's port N
// to 127.0.0.1:N of this machine, over SPDY (what the apiserver translates kubectl's tunnelled
// WebSocket to) and over the WebSocket `v4.channel.k8s.io` protocol (passed on as it is). Attach
// reaches a process exec-node starts for the container on its first attach, `cat`, so that what
// one writes to its stdin comes back on its stdout, to every session attached; it ends with its
// last session. A session ends with its stdin, as a container runtime ends the attach to a
// container not started with stdinOnce.
//
//	exec-node -listen 127.0.0.1:10260 -dir DIR
//
// Serves HTTPS (a certificate made at start: the apiserver verifies a kubelet's certificate only
// with --kubelet-certificate-authority) on the kubelet's paths
// `/exec/NAMESPACE/POD[/UID]/CONTAINER?command=...`, `/attach/NAMESPACE/POD[/UID]/CONTAINER` and
// `/portForward/NAMESPACE/POD[/UID]`, until killed. Every pod's commands run in DIR; with a
// terminal asked for, stdout and stderr both go to the terminal's stream (no pseudo-terminal is
// made).
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
	"strconv"
	"sync"
	"time"

	"k8s.io/cri-streaming/pkg/streaming/portforward"
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
	dir       string
	attachees *attachees
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

// drain reads the terminal sizes a client sends, which nothing here uses.
func drain(resize <-chan remotecommand.TerminalSize) {
	if resize != nil {
		go func() {
			for range resize {
			}
		}()
	}
}

// PortForward carries the pod's port to the same port of this machine's loopback until the port's
// side ends: the client's end of data is passed on as the end of what the port reads (a half
// close, as the runtimes' socat did).
func (r localRuntime) PortForward(ctx context.Context, _ string, _ string, port int32, stream io.ReadWriteCloser) error {
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))))
	if err != nil {
		return err
	}
	defer conn.Close()
	go func() {
		_, _ = io.Copy(conn, stream)
		_ = conn.(*net.TCPConn).CloseWrite()
	}()
	// The client going away is no failure of the pod's port.
	_, _ = io.Copy(stream, conn)
	return nil
}

// AttachContainer attaches to the container's process (started by the first session): stdin
// written to it until the session's stdin ends, its output to the session meanwhile.
func (r localRuntime) AttachContainer(_ context.Context, name string, _ string, container string, in io.Reader,
	out, _ io.WriteCloser, _ bool, resize <-chan remotecommand.TerminalSize) error {
	drain(resize)
	session, err := r.attachees.join(name+"/"+container, r.dir, out)
	if err != nil {
		return err
	}
	defer r.attachees.leave(session)
	if in == nil {
		// Without stdin a session lasts until its client goes, which its output's failing tells.
		<-session.gone
		return nil
	}
	_, _ = io.Copy(session.process.stdin, in)
	return nil
}

// attachees are the processes sessions are attached to, by pod and container.
type attachees struct {
	lock      sync.Mutex
	processes map[string]*attachee
}

// attachee is one container's process: `cat`, its output copied to every session attached.
type attachee struct {
	key      string
	process  *exec.Cmd
	stdin    io.WriteCloser
	sessions map[*session]struct{}
}

// session is one attach: where the process's output goes (nil: nowhere), and a channel closed
// when writing there fails.
type session struct {
	process *attachee
	out     io.Writer
	gone    chan struct{}
}

// join attaches a session writing to out to key's process, started if it does not run.
func (a *attachees) join(key, dir string, out io.Writer) (*session, error) {
	a.lock.Lock()
	defer a.lock.Unlock()
	process, ok := a.processes[key]
	if !ok {
		process = &attachee{key: key, process: exec.Command("cat"), sessions: map[*session]struct{}{}}
		process.process.Dir = dir
		stdin, err := process.process.StdinPipe()
		if err != nil {
			return nil, err
		}
		stdout, err := process.process.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := process.process.Start(); err != nil {
			return nil, err
		}
		process.stdin = stdin
		a.processes[key] = process
		go a.copyOut(process, stdout)
	}
	joined := &session{process: process, out: out, gone: make(chan struct{})}
	process.sessions[joined] = struct{}{}
	return joined, nil
}

// copyOut writes what the process prints to every session attached.
func (a *attachees) copyOut(process *attachee, stdout io.Reader) {
	buffer := make([]byte, 32*1024)
	for {
		count, err := stdout.Read(buffer)
		a.lock.Lock()
		for session := range process.sessions {
			if count == 0 || session.out == nil {
				continue
			}
			if _, writeErr := session.out.Write(buffer[:count]); writeErr != nil {
				close(session.gone)
				delete(process.sessions, session)
			}
		}
		a.lock.Unlock()
		if err != nil {
			return
		}
	}
}

// leave detaches the session; the process ends with its last session.
func (a *attachees) leave(session *session) {
	a.lock.Lock()
	defer a.lock.Unlock()
	process := session.process
	delete(process.sessions, session)
	if len(process.sessions) == 0 && a.processes[process.key] == process {
		delete(a.processes, process.key)
		_ = process.stdin.Close()
		go func() { _ = process.process.Wait() }()
	}
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

	runtime := localRuntime{dir: *dir, attachees: &attachees{processes: map[string]*attachee{}}}
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
	serveAttach := func(w http.ResponseWriter, req *http.Request) {
		options, err := remotecommand.NewOptions(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		pod := req.PathValue("pod") + "/" + req.PathValue("namespace")
		remotecommand.ServeAttach(w, req, runtime, pod, req.PathValue("uid"), req.PathValue("container"),
			options, idleTimeout, streamCreationTimeout, remotecommand.SupportedStreamingProtocols)
	}
	servePortForward := func(w http.ResponseWriter, req *http.Request) {
		options, err := portforward.NewV4Options(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		pod := req.PathValue("pod") + "/" + req.PathValue("namespace")
		portforward.ServePortForward(w, req, runtime, pod, req.PathValue("uid"), options, idleTimeout,
			streamCreationTimeout, portforward.SupportedProtocols)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/exec/{namespace}/{pod}/{container}", serveExec)
	mux.HandleFunc("/exec/{namespace}/{pod}/{uid}/{container}", serveExec)
	mux.HandleFunc("/attach/{namespace}/{pod}/{container}", serveAttach)
	mux.HandleFunc("/attach/{namespace}/{pod}/{uid}/{container}", serveAttach)
	mux.HandleFunc("/portForward/{namespace}/{pod}", servePortForward)
	mux.HandleFunc("/portForward/{namespace}/{pod}/{uid}", servePortForward)
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
