#!/usr/bin/env bash
# Makes client certificates for mTLS tests with the openssl CLI (independent of timbre's code).
#   make-client-pki.sh DIR
# The PKCS#12 password is read from the file DIR/p12-password (written by the caller, 0600), so it
# never appears in any process's argv. Writes to DIR:
#   client-ca.pem              the CA a server requiring client certificates trusts
#   client.pem, client.key     a client certificate signed by it (clientAuth) and its key, PEM
#   client.p12                 the same as PKCS#12 with the CA as chain, protected by the password
#   other.p12                  a client certificate signed by an unrelated CA, same password
#   open.p12                   client.pem/client.key as PKCS#12 with an empty password
#   garbage.p12                bytes that are not PKCS#12
set -euo pipefail
dir=$1
cd "$dir"
[[ -s p12-password ]] || { echo "write the PKCS#12 password to $dir/p12-password first" >&2; exit 2; }
ec() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
ca() { # name key subject
  openssl req -x509 -new -key "$2" -out "$1" -days 365 -subj "$3" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}
leaf() { # key ca ca-key subject out
  openssl req -new -key "$1" -out leaf.csr -subj "$4" 2>/dev/null
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n' > leaf.ext
  openssl x509 -req -in leaf.csr -CA "$2" -CAkey "$3" -CAcreateserial -out "$5" -days 365 -extfile leaf.ext 2>/dev/null
}
ec client-ca.key; ec client.key; ec other-ca.key; ec other.key
ca client-ca.pem client-ca.key "/CN=timbre test client CA"
ca other-ca.pem other-ca.key "/CN=unrelated client CA"
leaf client.key client-ca.pem client-ca.key "/CN=timbre test client" client.pem
leaf other.key other-ca.pem other-ca.key "/CN=stranger" other.pem
openssl pkcs12 -export -in client.pem -inkey client.key -certfile client-ca.pem -out client.p12 -passout file:p12-password
openssl pkcs12 -export -in other.pem -inkey other.key -out other.p12 -passout file:p12-password
openssl pkcs12 -export -in client.pem -inkey client.key -out open.p12 -passout pass:
printf 'this is not a PKCS#12 file\n' > garbage.p12
chmod 600 ./*.key ./*.p12
