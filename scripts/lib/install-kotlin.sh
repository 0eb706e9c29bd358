#!/usr/bin/env bash
# What the Kotlin package's build needs: a JDK (17 or later) and Maven. Maven
# then fetches kotlin-maven-plugin, JNA, kotlinx-coroutines and JUnit from
# Maven Central by version (bindings/kotlin/pom.xml). Installs Debian's
# `maven` and `openjdk-17-jdk-headless` only when they are missing.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

done_msgs=()
if ! command -v javac >/dev/null 2>&1; then
  apt_install openjdk-17-jdk-headless
  done_msgs+=("openjdk-17-jdk-headless")
fi
if ! command -v mvn >/dev/null 2>&1; then
  apt_install maven
  done_msgs+=("maven")
fi
need_cmd java javac mvn

if [ "${#done_msgs[@]}" -eq 0 ]; then
  log "ok: $(mvn -v 2>/dev/null | head -1 | sed 's/\x1b\[[0-9;]*m//g') and a JDK already installed"
else
  log "ok: installed $(joined "${done_msgs[@]}")"
fi
