// Command replay-send sends the requests that `scripts/replay.sh prepare` wrote into OUT, as
// `scripts/replay.sh send` describes: in two waves, each with CONCURRENCY workers over kept-alive
// HTTP/1.1 connections, in the recorded order, a write only once the request it was computed from
// has been answered. A compiled program, so that its start costs a few milliseconds and the floor
// of a one-object row is the server's time, not an interpreter's.
package main

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

type request struct {
	Method      string `json:"method"`
	Path        string `json:"path"`
	Wave        int    `json:"wave"`
	After       *int   `json:"after"`
	ContentType string `json:"content_type"`
	Body        string `json:"body"`
}

type recording struct {
	Server   string    `json:"server"`
	Token    string    `json:"token"`
	Requests []request `json:"requests"`
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: replay-send OUT CONCURRENCY")
		os.Exit(2)
	}
	out := os.Args[1]
	concurrency, err := strconv.Atoi(os.Args[2])
	if err != nil || concurrency < 1 {
		fmt.Fprintln(os.Stderr, "replay-send: CONCURRENCY must be a positive number")
		os.Exit(2)
	}
	raw, err := os.ReadFile(filepath.Join(out, "requests.json"))
	check(err)
	var recorded recording
	check(json.Unmarshal(raw, &recorded))
	bodies := make([][]byte, len(recorded.Requests))
	answered := make([]chan struct{}, len(recorded.Requests))
	for index, r := range recorded.Requests {
		answered[index] = make(chan struct{})
		if r.Body != "" {
			bodies[index], err = os.ReadFile(filepath.Join(out, r.Body))
			check(err)
		}
	}
	for _, wave := range []int{1, 2} {
		jobs := make(chan int, len(recorded.Requests))
		// In the recorded order: a request's dependency is always handed out before it.
		for index, r := range recorded.Requests {
			if r.Wave == wave {
				jobs <- index
			}
		}
		close(jobs)
		var workers sync.WaitGroup
		for range concurrency {
			workers.Go(func() {
				// One connection per worker, as the recorded client keeps them.
				client := &http.Client{Transport: &http.Transport{
					TLSClientConfig:     &tls.Config{InsecureSkipVerify: true},
					MaxConnsPerHost:     1,
					MaxIdleConnsPerHost: 1,
					DisableCompression:  true,
				}}
				for index := range jobs {
					r := recorded.Requests[index]
					if r.After != nil {
						<-answered[*r.After]
					}
					send(client, recorded, r, bodies[index])
					close(answered[index])
				}
			})
		}
		workers.Wait()
	}
}

// send makes one request and reads its answer whole; answers are not checked.
func send(client *http.Client, recorded recording, r request, body []byte) {
	req, err := http.NewRequest(r.Method, recorded.Server+r.Path, bytes.NewReader(body))
	check(err)
	req.Header.Set("Authorization", "Bearer "+recorded.Token)
	req.Header.Set("Accept", "application/json")
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	answer, err := client.Do(req)
	if err != nil {
		return
	}
	io.Copy(io.Discard, answer.Body)
	answer.Body.Close()
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "replay-send:", err)
		os.Exit(1)
	}
}
