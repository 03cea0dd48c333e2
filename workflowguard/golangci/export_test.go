package golangci

// MatchesForTest reports whether the workflow-packages pattern matches the package path.
func MatchesForTest(pattern, path string) (bool, error) {
	p, err := NewPlugin(Settings{WorkflowPackages: []string{pattern}})
	if err != nil {
		return false, err
	}
	return p.workflowPackage(path), nil
}
