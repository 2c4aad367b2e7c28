module kubeupd.local/fault-proxy

go 1.26
