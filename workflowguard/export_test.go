package workflowguard

// ResetProvidersForTest clears the -providers flag.
func ResetProvidersForTest() { extraProviders = nil }
