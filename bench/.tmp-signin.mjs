import autocannon from 'autocannon';
const I='ins_01M8DTNDJ7ZNFS6PGDWG92M0QB', PK='pk_test_bG9jYWxob3N0OjMwMDAvZmFwaS9pbnNfMDFNOERUTkRKN1pORlM2UEdEV0c5Mk0wUUIk';
let k=0, a=0;
const r = await autocannon({ url:`http://127.0.0.1:4799/fapi/${I}/v1/client/sign_ins`, connections:10, duration:Number(process.argv[2]||8),
  requests:[{method:'POST', setupRequest:(req)=>({...req, headers:{'content-type':'application/json','x-publishable-key':PK,'x-forwarded-for':`10.8.${(++a>>8)&255}.${a&255}`}, body:JSON.stringify({identifier:`pw${k++%20}@passwords.example.com`, password:'a bench passphrase 42'})})}]});
console.log(JSON.stringify({ok:r['2xx'], non2xx:r.non2xx, rps:r['2xx']/r.duration, p99:r.latency.p99}));
