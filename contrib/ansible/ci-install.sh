#!/usr/bin/env bash
# Installs what tests/live/ansible_fleet.rs needs, when missing: sshd
# (openssh-server), ip (iproute2), ansible-playbook (ansible-core, from the
# distribution if it has it, else from pip) and, best effort, ansible-lint.
# Idempotent: a second run installs nothing. Meant to be called from .ci/run;
# as non-root or without apt-get it only says what is missing (the test then
# skips with its reason).
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
# sshd lives in /usr/sbin, which a non-login PATH may lack.
have_sshd() { have sshd || [ -x /usr/sbin/sshd ]; }

apt_need=()
have_sshd || apt_need+=(openssh-server)
have ssh || apt_need+=(openssh-client)
have ssh-keygen || apt_need+=(openssh-client)
have ip || apt_need+=(iproute2)

want_ansible=0
have ansible-playbook || want_ansible=1
want_lint=0
have ansible-lint || want_lint=1

if [ "${#apt_need[@]}" -eq 0 ] && [ "$want_ansible" = 0 ] && [ "$want_lint" = 0 ]; then
    exit 0
fi

if [ "$(id -u)" != 0 ] || ! have apt-get; then
    echo "ansible fleet test: not root or no apt-get; missing:" \
        "${apt_need[*]-}$([ "$want_ansible" = 1 ] && echo ' ansible-core')" \
        "$([ "$want_lint" = 1 ] && echo ' ansible-lint') (the test will skip)"
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt_updated=0
apt_update() {
    if [ "$apt_updated" = 0 ]; then
        apt-get update -qq
        apt_updated=1
    fi
}
# (Output captured first: grep -q closing the pipe early would fail it
# under pipefail.)
apt_has() {
    local policy_out
    apt_update
    policy_out=$(apt-cache policy "$1" 2>/dev/null || true)
    [[ "$policy_out" == *"Candidate: "[0-9]* ]]
}

# Keep the package scripts from starting a system-wide sshd on port 22: the
# test starts its own, in namespaces it creates. Only when no policy exists.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    made_policy=1
fi
cleanup() { if [ "$made_policy" = 1 ]; then rm -f "$policy"; fi; }
trap cleanup EXIT

if [ "$want_ansible" = 1 ] && apt_has ansible-core; then
    apt_need+=(ansible-core)
    want_ansible=0
fi
if [ "${#apt_need[@]}" -gt 0 ]; then
    apt_update
    # No recommends: ansible-core recommends the full `ansible` (collections),
    # which the playbook does not use.
    echo "installing: ${apt_need[*]}"
    apt-get install -y -qq --no-install-recommends "${apt_need[@]}" >/dev/null
fi

if [ "$want_ansible" = 1 ]; then
    echo "installing: ansible-core (pip)"
    python3 -m pip install -q ansible-core
fi

# ansible-lint is optional: the test skips the lint with a reason without it.
if [ "$want_lint" = 1 ]; then
    if apt_has ansible-lint; then
        echo "installing: ansible-lint"
        apt-get install -y -qq --no-install-recommends ansible-lint >/dev/null ||
            echo "ansible-lint could not be installed; the test will skip the lint"
    else
        echo "installing: ansible-lint (pip)"
        python3 -m pip install -q ansible-lint ||
            echo "ansible-lint could not be installed; the test will skip the lint"
    fi
fi
