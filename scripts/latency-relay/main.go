// latency-relay: a TCP relay that delivers every byte a fixed time after it arrived, in each
// direction, so that a cluster on loopback answers as one across a network does (half the round
// trip each way). Bytes pass through unchanged (TLS ends at the apiserver) and are not slowed
// by their size: only latency is added, not a bandwidth limit.
//
//	latency-relay LISTEN UPSTREAM ONE-WAY-DELAY   e.g. 127.0.0.1:0 127.0.0.1:26443 10ms
//
// Prints the address it listens on, then relays until killed.
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

type chunk struct {
	due  time.Time
	data []byte
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: latency-relay LISTEN UPSTREAM ONE-WAY-DELAY")
		os.Exit(2)
	}
	delay, err := time.ParseDuration(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, "latency-relay:", err)
		os.Exit(2)
	}
	listener, err := net.Listen("tcp", os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "latency-relay:", err)
		os.Exit(1)
	}
	fmt.Println(listener.Addr().String())
	os.Stdout.Close()
	for {
		client, err := listener.Accept()
		if err != nil {
			continue
		}
		go relay(client, os.Args[2], delay)
	}
}

// relay joins a client's connection to a new one to upstream, each direction delayed.
func relay(client net.Conn, upstream string, delay time.Duration) {
	server, err := net.Dial("tcp", upstream)
	if err != nil {
		client.Close()
		return
	}
	go pipe(client, server, delay)
	go pipe(server, client, delay)
}

// pipe copies from to to, each read written delay after it was read, in order; a close is
// passed on after the bytes before it.
func pipe(from, to net.Conn, delay time.Duration) {
	queue := make(chan chunk, 4096)
	go func() {
		failed := false
		for c := range queue {
			if failed {
				continue // drained, so that the reader never blocks on a dead connection
			}
			time.Sleep(time.Until(c.due))
			if _, err := to.Write(c.data); err != nil {
				failed = true
				from.Close()
			}
		}
		to.Close()
		from.Close()
	}()
	buf := make([]byte, 64*1024)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			queue <- chunk{time.Now().Add(delay), append([]byte(nil), buf[:n]...)}
		}
		if err != nil {
			if err != io.EOF {
				from.Close()
			}
			close(queue)
			return
		}
	}
}
