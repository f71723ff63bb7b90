package agenttest

import (
	"crypto/rand"
	"encoding/hex"
)

// runMarkerVar names an environment variable set to a value unique to each
// run. Every process the agent starts inherits it, including tools that the
// agent puts in a session of their own, so they can be found and killed
// after the agent itself is gone.
const runMarkerVar = "AGENTTEST_RUN_ID"

func newRunMarker() string {
	b := make([]byte, 12)
	rand.Read(b)
	return runMarkerVar + "=" + hex.EncodeToString(b)
}
