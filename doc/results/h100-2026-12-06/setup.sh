# Sourced on the device: unpack libcsv and bats into a prefix, build the tarball for sm_90
# (once per machine: a warm machine keeps /tmp/build).
set -u
P=/tmp/pfx; mkdir -p $P
for f in .dev/deb/*.deb; do dpkg -x $f $P; done
export PATH=$P/usr/bin:$PATH LD_LIBRARY_PATH=$P/usr/lib/x86_64-linux-gnu
B=/tmp/build; sum=$(md5sum .dev/arenabench-*.tar.gz | cut -c1-32)
if [ "$(cat $B/.sum 2>/dev/null)" != "$sum" ]; then
  rm -rf $B; mkdir -p $B; tar -xzf .dev/arenabench-*.tar.gz -C $B
  ( cd $B/arenabench-*/ &&
    ./configure -q CUDA_ARCHS=90 CPPFLAGS=-I$P/usr/include LDFLAGS=-L$P/usr/lib/x86_64-linux-gnu BATS=$P/usr/bin/bats >/dev/null &&
    make -j16 >/dev/null 2>&1 ) || { echo build failed; cd $B/arenabench-*/ && make 2>&1 | tail -30; exit 1; }
  echo "$sum" > $B/.sum
fi
cd $B/arenabench-*/
export PATH=$PWD/src:$PWD/contrib:$PATH
SRC=$PWD
cd - >/dev/null
[ -x /tmp/probe ] || nvcc -O2 -arch=sm_90 -std=c++17 -o /tmp/probe .dev/probe-pipeline.cu || exit 1
nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv
