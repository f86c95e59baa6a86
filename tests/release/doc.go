// Package release tests what graphwire ships besides its source: the OCI image
// (scripts/build-image.sh), the release tarballs with their checksums and SBOM
// (scripts/dist.sh) and the deployment files under deploy/ (the systemd unit and the Helm
// chart).
//
// The image test is heavy (a 560 MB engine layer) and runs only when GRAPHWIRE_IMAGE names an
// OCI image layout directory, as make image-test does after make image:
//
//	GRAPHWIRE_IMAGE=build/image         the layout to test (its only tag, or GRAPHWIRE_IMAGE_TAG)
//	GRAPHWIRE_PODMAN_GLOBAL_FLAGS=...   podman's own flags this host needs (--runtime, --cgroup-manager)
//	GRAPHWIRE_PODMAN_RUN_FLAGS=...      podman run's flags this host needs (--ulimit)
//
// It runs the image's own binary twice: with podman (read-only root, no network, the data
// directory a volume), and with chroot(2) into the unpacked layers as the image's user (root
// only). Each seeds a graph and answers a query from it.
//
// The dist and deploy tests run in make test: they need git, tar, systemd-analyze and the
// pinned helm and cyclonedx-gomod (scripts/install-test-tools.sh); under CI=true a missing tool
// fails them instead of skipping.
package release
