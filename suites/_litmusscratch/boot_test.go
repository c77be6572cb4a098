package ordering_test

import (
	"os"
	"testing"

	"github.com/p2pconf/p2pconf/harness"
)

func TestMain(m *testing.M) { os.Exit(harness.Main(m)) }

func TestOrdering(t *testing.T) { harness.RunSuite(t, "ordering") }
