//! Requests forwarded as they are, for `kubeupd proxy`: the caller's method, path, headers and
//! body, sent with the kubeconfig's credentials.

use kube::client::Body;

use super::Cluster;
use super::error::Result;

impl Cluster {
    /// Sends `request` (its URI a path with query on the server) with the kubeconfig's
    /// credentials; the answer comes back whatever its status, its body streamed as it arrives.
    pub async fn forward(&self, request: http::Request<Body>) -> Result<http::Response<Body>> {
        self.transport.forward(request).await
    }
}
