# Building and releasing shadow (CONTRIBUTING.md, docs/install.md).
#
#   make              build ./shadow for this machine
#   make install      go install with the version stamped
#   make test         the README's test command (go test ./...)
#   make release      cross-build dist/ for every platform, with SHA256SUMS
#
# VERSION defaults to git describe (v0.1.0, v0.1.0-3-gabc1234, -dirty);
# it is stamped into main.version, which `shadow version` prints.

VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1.0-dev)
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64
DIST      ?= dist
GO        ?= go
# -trimpath: no build machine's paths in the binary (reproducible builds);
# -s -w: no symbol tables; CGO_ENABLED=0: static, runs on any libc.
LDFLAGS   := -s -w -X main.version=$(VERSION)
BUILD     := CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)'

.PHONY: build install test release clean

build:
	$(BUILD) -o shadow .

install:
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' .

test:
	$(GO) test ./...

# One directory and archive per platform, shadow-VERSION-OS-ARCH.tar.gz
# (Windows 10 and later have tar too), holding the binary, LICENSE,
# README.md and CHANGELOG.md; SHA256SUMS covers the archives.
release:
	rm -rf $(DIST) && mkdir -p $(DIST)
	set -e; for p in $(PLATFORMS); do \
	  os=$${p%/*}; arch=$${p#*/}; name=shadow-$(VERSION)-$$os-$$arch; \
	  exe=shadow; [ $$os = windows ] && exe=shadow.exe; \
	  mkdir -p $(DIST)/$$name; \
	  GOOS=$$os GOARCH=$$arch $(BUILD) -o $(DIST)/$$name/$$exe . ; \
	  cp LICENSE README.md CHANGELOG.md $(DIST)/$$name/; \
	  tar -C $(DIST) -czf $(DIST)/$$name.tar.gz $$name; \
	done
	cd $(DIST) && sha256sum shadow-$(VERSION)-*.tar.gz > SHA256SUMS
	@echo "$(DIST)/: $$(ls $(DIST)/*.tar.gz | wc -l) archives of $(VERSION) and SHA256SUMS"

clean:
	rm -rf $(DIST) shadow
