# An independent Mann-Whitney U, p and Hodges-Lehmann shift interval for
# tests/bench-summarize.bats: the exact null distribution by enumerating
# every subset of ranks, the normal approximation in mpmath (no scipy here).
import math, itertools, statistics
from mpmath import mp, mpf, erfc, sqrt as msqrt
def mw(x,y,conf=0.95, exact_max=50):
    m,n=len(x),len(y)
    allv=sorted([(v,0) for v in x]+[(v,1) for v in y])
    # midranks
    ranks={}
    i=0; T=0; R1=0
    vals=[v for v,_ in allv]
    while i<len(allv):
        k=i
        while k<len(allv) and vals[k]==vals[i]: k+=1
        t=k-i; T+=t**3-t; mid=(i+k+1)/2
        R1+=sum(mid for j in range(i,k) if allv[j][1]==0)
        i=k
    U=R1-m*(m+1)/2
    N=m+n; mn=m*n; alpha=(1-conf)/2
    diffs=sorted(a-b for a in x for b in y)
    shift=statistics.median(diffs)
    if T==0 and N<=exact_max:
        # brute-force exact distribution by enumerating subsets of ranks
        counts=[0]*(mn+1)
        for comb in itertools.combinations(range(1,N+1),m):
            counts[sum(comb)-m*(m+1)//2]+=1
        tot=sum(counts); cdf=list(itertools.accumulate(counts))
        u=int(U)
        p=min(1,2*min(cdf[u]/tot, cdf[mn-u]/tot))
        k=0
        while k<mn and cdf[k]/tot<=alpha: k+=1
    else:
        var=mpf(mn)/12*((N+1)-mpf(T)/(N*(N-1)))
        z=(abs(U-mpf(mn)/2)-mpf(1)/2)/msqrt(var)
        p=min(1,erfc(z/msqrt(2))) if z>0 else 1
        from statistics import NormalDist
        k=math.floor(mn/2-NormalDist().inv_cdf(1-alpha)*math.sqrt(mn*(N+1)/12))
    lo=diffs[k-1] if k>=1 else None; hi=diffs[mn-k] if k>=1 else None
    return U,float(p),shift,lo,hi
print(mw([3,5,7,9,11],[1,2,3,4,5]))
print(mw([2.5,3.1,4.7,5.2,6.8,7.4],[1.1,1.9,2.2,3.3,4.0,4.4,5.9]))
