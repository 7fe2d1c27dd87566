import json,sys,collections,subprocess
f=sys.argv[1]; depth=int(sys.argv[2]) if len(sys.argv)>2 else 6
out=subprocess.run(['jfr','print','--json','--stack-depth','64','--events','jdk.CPUTimeSample',f],capture_output=True,text=True).stdout
ev=json.loads(out)['recording']['events']
tot=len(ev); c=collections.Counter(); incl=collections.Counter(); thr=collections.Counter()
for e in ev:
    fr=e['values']['stackTrace']['frames'] if e['values'].get('stackTrace') else []
    names=[x['method']['type']['name'].split('.')[-1]+'.'+x['method']['name'] for x in fr]
    c[' <- '.join(names[:depth])]+=1
    for n in set(names): incl[n]+=1
    t=e['values'].get('eventThread') or {}
    nm=(t.get('javaName') or t.get('osName') or '?')
    import re; thr[re.sub(r'\d+','N',nm)]+=1
print('samples',tot)
print('-- threads'); [print(f'{v*100/tot:5.1f}% {k}') for k,v in thr.most_common(8)]
print('-- stacks'); [print(f'{v*100/tot:5.1f}% {k}') for k,v in c.most_common(18)]
print('-- inclusive'); [print(f'{v*100/tot:5.1f}% {k}') for k,v in incl.most_common(40)]
