package agenttest

import "testing"

func TestCodexMCPName(t *testing.T) {
	for _, tc := range []struct{ name, namespace, tool string }{
		{"mcp__git-checkpoint__rewind_plan", "mcp__git_checkpoint", "rewind_plan"},
		{"mcp__a.b__c__d", "mcp__a_b", "c__d"},
		{"mcp__plain__t", "mcp__plain", "t"},
		{"exec_command", "", ""},
		{"mcp____t", "", ""},
		{"mcp__server", "", ""},
	} {
		ns, tool, ok := codexMCPName(tc.name)
		if ok != (tc.namespace != "") || ns != tc.namespace || tool != tc.tool {
			t.Errorf("codexMCPName(%q) = %q, %q, %v; want %q, %q", tc.name, ns, tool, ok, tc.namespace, tc.tool)
		}
	}
}
