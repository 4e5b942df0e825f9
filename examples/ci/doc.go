// Package ci holds the tests of referee's CI recipes: the GitHub Actions
// workflow, the GitLab job and the Kubernetes Indexed Job in this folder,
// the action.yml at the repository's root, and docs/ci.md. It has no code
// of its own.
package ci
