module kubeupd.local/latency-relay

go 1.26
